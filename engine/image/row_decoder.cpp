#include "row_decoder.h"

#include <cstring>

#include "image.h"

namespace mdfi {

Result<std::unique_ptr<RowDecoder>> open_row_decoder(const ImageBytes& src, const DecodeOptions& opt,
                                                     MemoryTracker& mem) {
  uint8_t sig[8] = {};
  std::rewind(src.file);
  const size_t n = std::fread(sig, 1, sizeof sig, src.file);
  std::rewind(src.file);
  if (n == 0) return Result<std::unique_ptr<RowDecoder>>(ErrorKind::kImage, src.name + ": empty file, not an image");
  // The row decoders' limit here; the whole-image ones check their own (stb_header).
  const bool chosen = opt.max_pixels > 0;
  MDFI_RETURN_IF_ERROR(check_image_header(src.file, src.name, chosen ? opt.max_pixels : kMaxRowImagePixels, chosen,
                                          false));
  const bool jpeg = n >= 3 && sig[0] == 0xFF && sig[1] == 0xD8 && sig[2] == 0xFF;
  const bool png = n >= 8 && std::memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0;
  if (jpeg && opt.jpeg == JpegDecoder::kLibjpeg) return open_jpeg_decoder(src, opt, mem);
  if (png) return open_png_decoder(src, mem, opt.max_pixels);
  return open_stb_decoder(src, mem, opt.max_pixels);
}

}  // namespace mdfi
