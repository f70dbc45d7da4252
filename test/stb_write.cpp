// stb_image_write compiled once for the tests that make images at run time (the robustness
// corpus's JPEGs, the camera tests' photos and MJPEG frames); they include <stb_image_write.h>
// for the declarations only.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
