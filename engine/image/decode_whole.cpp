// The row decoder over a whole decoded image: stb_image's decode, for formats without a row
// decoder here (BMP, TGA, GIF) and JPEG under --decoder stb.
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>

#include "image.h"
#include "row_decoder.h"

namespace mdfi {

namespace {

// Reads the header only; stb decodes the whole image on the first row, after the caller's
// budget check. A BMP is decoded straight into its RGB image (stbi__bmp_load: 3 bytes a pixel,
// with the 64-byte prefix image_decode.cpp's allocator adds): exact. A JPEG holds, at its peak,
// one plane per component at its sampling (whole MCUs), its DCT coefficients too when
// progressive, and the RGB image (stbi__load_jpeg_image): computed from the frame header
// (stb_jpeg_bytes). For GIF and TGA stb's peak is not known from the header (GIF keeps a
// canvas, a history and a background; TGA its pixels and a converted copy), so working_bytes()
// is an upper bound: the file, plus 12 bytes per pixel.
class WholeRows final : public RowDecoder {
 public:
  WholeRows(std::FILE* fp, std::string name, MemoryTracker& mem, long long max_pixels)
      : fp_(fp), image_(std::move(name)), mem_(mem), max_pixels_(max_pixels) {
    name_ = "stb_image";
  }
  // `known`: the decoder's peak when the format gives it (BMP, JPEG), else 0.
  Status open(int w, int h, int64_t file_bytes, size_t known) {
    w_ = image_w_ = w;
    h_ = image_h_ = h;
    working_ = known ? known : size_t(file_bytes) + size_t(12) * size_t(w) * size_t(h) + 65536;
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

// stb_image's peak for a JPEG from its frame header (SOF0/1/2), 0 when the header cannot be
// read: per component a plane of whole MCUs (stbi__jpeg raw_data, 1 byte a sample; 2 more for
// the coefficients of a progressive file), the RGB image, its decoder struct and line buffers,
// each allocation with image_decode.cpp's 64-byte prefix.
size_t stb_jpeg_bytes(std::FILE* fp, int w, int h) {
  std::rewind(fp);
  auto byte = [fp]() { return std::fgetc(fp); };
  size_t total = 0;
  if (byte() != 0xFF || byte() != 0xD8) return 0;
  while (true) {
    int c = byte();
    while (c == 0xFF) c = byte();
    if (c == EOF || c == 0xD9 || c == 0xDA) break;
    const int hi = byte(), lo = byte();
    if (hi == EOF || lo == EOF) break;
    const long len = long(hi) << 8 | lo;
    if (c >= 0xC0 && c <= 0xC2) {
      int head[6];
      for (int& v : head) v = byte();
      const int n = head[5];
      if (n < 1 || n > 4) break;
      int hs[4], vs[4], hmax = 1, vmax = 1;
      for (int i = 0; i < n; ++i) {
        byte();
        const int hv = byte();
        byte();
        hs[i] = std::max(1, hv >> 4), vs[i] = std::max(1, hv & 15);
        hmax = std::max(hmax, hs[i]), vmax = std::max(vmax, vs[i]);
      }
      const size_t mcu_x = (size_t(w) + 8 * hmax - 1) / (8 * hmax), mcu_y = (size_t(h) + 8 * vmax - 1) / (8 * vmax);
      const size_t per_sample = c == 0xC2 ? 3 : 1;
      for (int i = 0; i < n; ++i) total += mcu_x * hs[i] * 8 * mcu_y * vs[i] * 8 * per_sample + 2 * (15 + 64) + size_t(w) + 3;
      total += size_t(3) * size_t(w) * size_t(h) + 64;  // the RGB image
      total += 20000;                                   // stbi__jpeg (its tables) and the context
      break;
    }
    if (std::fseek(fp, len - 2, SEEK_CUR) != 0) break;
  }
  std::rewind(fp);
  return total;
}

}  // namespace

Result<std::unique_ptr<RowDecoder>> open_stb_decoder(const ImageBytes& src, MemoryTracker& mem, long long max_pixels) {
  int w = 0, h = 0;
  int64_t bytes = 0;
  MDFI_RETURN_IF_ERROR(stb_header(src.file, src.name, &w, &h, &bytes, max_pixels));
  char sig[2] = {};
  std::rewind(src.file);
  const bool got = std::fread(sig, 1, 2, src.file) == 2;
  std::rewind(src.file);
  size_t known = 0;
  if (got && sig[0] == 'B' && sig[1] == 'M') known = size_t(3) * size_t(w) * size_t(h) + 64;
  if (got && uint8_t(sig[0]) == 0xFF && uint8_t(sig[1]) == 0xD8) known = stb_jpeg_bytes(src.file, w, h);
  auto rows = std::make_unique<WholeRows>(src.file, src.name, mem, max_pixels);
  MDFI_RETURN_IF_ERROR(rows->open(w, h, bytes, known));
  return std::unique_ptr<RowDecoder>(std::move(rows));
}

}  // namespace mdfi
