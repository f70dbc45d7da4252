// Row decoders over a whole decoded image: stb_image's decode (formats without a row decoder
// here), and EXIF orientations, which move pixels across rows and so need the whole image.
#include <cstdint>
#include <cstring>
#include <string>

#include "image.h"
#include "row_decoder.h"

namespace mdfi {

namespace {

// Reads the header only; stb decodes the whole image on the first row, after the caller's
// budget check. stb's peak during that decode is not known exactly from the header (GIF keeps
// a canvas, a history and a background; PNG the inflated data and a conversion copy), so
// working_bytes() is an upper bound: the file, plus 12 bytes per pixel.
class WholeRows final : public RowDecoder {
 public:
  WholeRows(std::FILE* fp, std::string name, MemoryTracker& mem, long long max_pixels)
      : fp_(fp), image_(std::move(name)), mem_(mem), max_pixels_(max_pixels) {
    name_ = "stb_image";
  }
  Status open(int w, int h, int64_t file_bytes) {
    w_ = image_w_ = w;
    h_ = image_h_ = h;
    working_ = size_t(file_bytes) + size_t(12) * size_t(w) * size_t(h) + 65536;
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

// The source decoded whole into a tracked buffer, then handed out in EXIF orientation
// `o` (2: mirrored, 3: 180, 4: flipped, 5-8: transposed variants; TIFF's definitions).
class RotatedRows final : public RowDecoder {
 public:
  // Sets up only: the source is decoded on the first row, after the caller's budget check.
  Status init(std::unique_ptr<RowDecoder> source, int o, MemoryTracker& mem) {
    src_ = std::move(source);
    RowDecoder& src = *src_;
    o_ = o;
    sw_ = src.width();
    sh_ = src.height();
    MDFI_ASSIGN_OR_RETURN(auto b, Buffer::make(mem, (size_t(sw_) * sh_ * 3 + 3) / 4, MemCategory::kOther, "the rotated image"));
    pixels_ = std::move(b);
    const bool swap = o >= 5;
    w_ = swap ? sh_ : sw_;
    h_ = swap ? sw_ : sh_;
    image_w_ = swap ? src.image_height() : src.image_width();
    image_h_ = swap ? src.image_width() : src.image_height();
    working_ = src.working_bytes() + pixels_.bytes();
    name_ = src.name();
    return Status::Ok();
  }
  Status read_row(uint8_t* rgb) override {
    if (src_) {
      auto* all = reinterpret_cast<uint8_t*>(pixels_.data());
      for (int y = 0; y < sh_; ++y) MDFI_RETURN_IF_ERROR(src_->read_row(all + size_t(y) * sw_ * 3));
      src_warnings_ = src_->warnings();
      src_.reset();  // the decoder's memory goes back before the rows are handed out
    }
    const auto* p = reinterpret_cast<const uint8_t*>(pixels_.data());
    const int y = next_++;
    for (int x = 0; x < w_; ++x) {
      int sx = x, sy = y;  // source pixel of output (x, y)
      switch (o_) {
        case 2: sx = sw_ - 1 - x; break;
        case 3: sx = sw_ - 1 - x; sy = sh_ - 1 - y; break;
        case 4: sy = sh_ - 1 - y; break;
        case 5: sx = y; sy = x; break;
        case 6: sx = y; sy = sh_ - 1 - x; break;
        case 7: sx = sw_ - 1 - y; sy = sh_ - 1 - x; break;
        case 8: sx = sw_ - 1 - y; sy = x; break;
        default: break;
      }
      std::memcpy(rgb + size_t(x) * 3, p + (size_t(sy) * sw_ + sx) * 3, 3);
    }
    return Status::Ok();
  }

 private:
  std::vector<std::string> warnings() const override { return src_ ? src_->warnings() : src_warnings_; }

 private:
  int o_ = 1, sw_ = 0, sh_ = 0, next_ = 0;
  std::unique_ptr<RowDecoder> src_;
  std::vector<std::string> src_warnings_;
  Buffer pixels_;
};

}  // namespace

Result<std::unique_ptr<RowDecoder>> open_stb_decoder(const ImageBytes& src, MemoryTracker& mem, long long max_pixels) {
  int w = 0, h = 0;
  int64_t bytes = 0;
  MDFI_RETURN_IF_ERROR(stb_header(src.file, src.name, &w, &h, &bytes, max_pixels));
  auto rows = std::make_unique<WholeRows>(src.file, src.name, mem, max_pixels);
  MDFI_RETURN_IF_ERROR(rows->open(w, h, bytes));
  return std::unique_ptr<RowDecoder>(std::move(rows));
}

Result<std::unique_ptr<RowDecoder>> rotate_rows(std::unique_ptr<RowDecoder> src, int orientation, MemoryTracker& mem) {
  auto rotated = std::make_unique<RotatedRows>();
  MDFI_RETURN_IF_ERROR(rotated->init(std::move(src), orientation, mem));
  return std::unique_ptr<RowDecoder>(std::move(rotated));
}

}  // namespace mdfi
