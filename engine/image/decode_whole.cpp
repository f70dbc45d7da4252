// The row decoder over a whole decoded image: stb_image's decode, for formats without a row
// decoder here (BMP, TGA, GIF) and JPEG under --decoder stb.
#include <cstdint>
#include <cstring>
#include <string>

#include "image.h"
#include "row_decoder.h"

namespace mdfi {

namespace {

// Reads the header only; stb decodes the whole image on the first row, after the caller's
// budget check. A BMP is decoded straight into its RGB image (stbi__bmp_load: 3 bytes a pixel,
// with the 64-byte prefix image_decode.cpp's allocator adds): exact. For the rest stb's peak is
// not known exactly from the header (GIF keeps a canvas, a history and a background; a JPEG its
// upsampled planes and the image; TGA its own pixels and a converted copy), so working_bytes()
// is an upper bound: the file, plus 12 bytes per pixel.
class WholeRows final : public RowDecoder {
 public:
  WholeRows(std::FILE* fp, std::string name, MemoryTracker& mem, long long max_pixels)
      : fp_(fp), image_(std::move(name)), mem_(mem), max_pixels_(max_pixels) {
    name_ = "stb_image";
  }
  Status open(int w, int h, int64_t file_bytes, bool bmp) {
    w_ = image_w_ = w;
    h_ = image_h_ = h;
    working_ = bmp ? size_t(3) * size_t(w) * size_t(h) + 64
                   : size_t(file_bytes) + size_t(12) * size_t(w) * size_t(h) + 65536;
    return Status::Ok();
  }
  Status read_row(uint8_t* rgb) override {
    if (next_ == 0) {
      MDFI_ASSIGN_OR_RETURN(auto im, decode_image_u8(fp_, image_, mem_, max_pixels_));
      if (im.w != w_ || im.h != h_)
        return Status(ErrorKind::kImage, image_ + ": decoded size differs from the header's");
      im_ = std::move(im);
    }
    std::memcpy(rgb, im_.pixels() + size_t(next_++) * w_ * 3, size_t(w_) * 3);
    return Status::Ok();
  }

 private:
  std::FILE* fp_;
  std::string image_;
  MemoryTracker& mem_;
  long long max_pixels_;
  ImageU8 im_;
  int next_ = 0;
};

}  // namespace

Result<std::unique_ptr<RowDecoder>> open_stb_decoder(const ImageBytes& src, MemoryTracker& mem, long long max_pixels) {
  int w = 0, h = 0;
  int64_t bytes = 0;
  MDFI_RETURN_IF_ERROR(stb_header(src.file, src.name, &w, &h, &bytes, max_pixels));
  char sig[2] = {};
  std::rewind(src.file);
  const bool bmp = std::fread(sig, 1, 2, src.file) == 2 && sig[0] == 'B' && sig[1] == 'M';
  std::rewind(src.file);
  auto rows = std::make_unique<WholeRows>(src.file, src.name, mem, max_pixels);
  MDFI_RETURN_IF_ERROR(rows->open(w, h, bytes, bmp));
  return std::unique_ptr<RowDecoder>(std::move(rows));
}

}  // namespace mdfi
