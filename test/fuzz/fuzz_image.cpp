// libFuzzer target: arbitrary bytes as an image file (any format stb_image knows), decoded to
// 8-bit RGB and letterboxed to a network size chosen by the last bytes, as detect prepares input.
// A decoded image's tracked memory must be back to zero afterwards.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "image.h"
#include "image_probe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // The whole input is the file (so real images seed the corpus as they are); the network size
  // comes from its last bytes, which image decoders ignore.
  const int net_w = 1 + data[size - 1] % 64, net_h = 1 + data[size - 2] % 64;
  static const std::string path = "/tmp/mdfi_fuzz_image_" + std::to_string(::getpid()) + ".img";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  // Images up to the 64-megapixel limit are legal but take seconds each under ASan; the limit
  // itself is covered by the corpus. Keep the search fast: small declared sizes only (TGA has no
  // magic, so its header fields are checked by hand).
  {
    std::FILE* p = std::fopen(path.c_str(), "rb");
    if (!p) return 0;
    const mdfi::DeclaredSize d = mdfi::probe_image_size(p);
    std::fclose(p);
    if (d.known && (d.w > 1000 * 1000 || d.h > 1000 * 1000 || d.w * d.h > 1000 * 1000)) return 0;
    if (!d.known && size >= 16 && (int64_t(data[12] | data[13] << 8) * (data[14] | data[15] << 8)) > 1000 * 1000)
      return 0;
  }
  mdfi::MemoryTracker mem;
  {
    auto im = mdfi::load_image_u8(path, mem);
    if (im.ok()) {
      auto boxed = mdfi::letterbox_image(*im, net_w, net_h, mem);
      (void)boxed;
    }
  }
  if (mem.current().total() != 0) __builtin_trap();  // a leak through the tracker
  return 0;
}
