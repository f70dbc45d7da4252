// libFuzzer target: arbitrary bytes as an image file (any format stb_image knows), decoded to RGB
// and letterboxed to a network size chosen by the first bytes, the way detect prepares an input.
// A decoded image's tracked memory must be back to zero afterwards.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int net_w = 1 + data[0] % 64, net_h = 1 + data[1] % 64;
  static const std::string path = "/tmp/mdfi_fuzz_image_" + std::to_string(::getpid()) + ".img";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data + 2, 1, size - 2, f);
  std::fclose(f);
  mdfi::MemoryTracker mem;
  {
    auto im = mdfi::load_image_rgb(path, mem);
    if (im.ok()) {
      auto boxed = mdfi::letterbox_image(*im, net_w, net_h, mem);
      (void)boxed;
    }
  }
  if (mem.current().total() != 0) __builtin_trap();  // a leak through the tracker
  return 0;
}
