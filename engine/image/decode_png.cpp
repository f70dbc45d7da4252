// PNG rows through libpng's row API: only two rows of the image (libpng's current and previous
// row, for the filters) and zlib's 32 kB window are held. Interlaced (Adam7) files need every
// pass before any row is complete: libpng combines the seven passes into one RGB image (3 bytes
// a pixel, counted; stb_image held the compressed data, the inflated passes and the image).
// The conversions are stb_image's, so rows are bit-identical to what Darknet decodes: palette
// and 1/2/4-bit grey expanded to 8 bits, 16-bit samples reduced to their high byte, grey
// replicated to RGB, alpha dropped (not composited).
#include <csetjmp>
#include <cstring>
#include <string>

#include <png.h>

#include "image.h"
#include "row_decoder.h"

namespace mdfi {

namespace {

constexpr size_t kBlockHeader = 16;  // remembers each block's size, keeps 16-byte alignment

struct PngContext {
  MemoryTracker* mem = nullptr;
  std::string message;
  bool out_of_memory = false;
};

png_voidp tracked_png_malloc(png_structp png, png_alloc_size_t n) {
  auto* ctx = static_cast<PngContext*>(png_get_mem_ptr(png));
  if (!ctx->mem->account(n + kBlockHeader, MemCategory::kOther)) {
    ctx->out_of_memory = true;
    return nullptr;
  }
  auto* raw = static_cast<unsigned char*>(std::malloc(n + kBlockHeader));
  if (!raw) {
    ctx->mem->unaccount(n + kBlockHeader, MemCategory::kOther);
    ctx->out_of_memory = true;
    return nullptr;
  }
  std::memcpy(raw, &n, sizeof n);
  return raw + kBlockHeader;
}

void tracked_png_free(png_structp png, png_voidp p) {
  if (!p) return;
  auto* ctx = static_cast<PngContext*>(png_get_mem_ptr(png));
  auto* raw = static_cast<unsigned char*>(p) - kBlockHeader;
  png_alloc_size_t n;
  std::memcpy(&n, raw, sizeof n);
  ctx->mem->unaccount(n + kBlockHeader, MemCategory::kOther);
  std::free(raw);
}

[[noreturn]] void png_fail(png_structp png, png_const_charp msg) {
  static_cast<PngContext*>(png_get_error_ptr(png))->message = msg ? msg : "decode failed";
  png_longjmp(png, 1);
}
void png_warn(png_structp, png_const_charp) {}

class PngRows final : public RowDecoder {
 public:
  PngRows(MemoryTracker& mem, std::string name) : image_(std::move(name)) {
    ctx_.mem = &mem;
    name_ = "libpng";
  }
  ~PngRows() override {
    if (png_) png_destroy_read_struct(&png_, info_ ? &info_ : nullptr, nullptr);
  }

  // Header and transforms; an interlaced file's whole image buffer is allocated here, decoded
  // on the first row (after the caller's budget check).
  Status open(std::FILE* fp, long long max_pixels) {
    const size_t before = ctx_.mem->current().of(MemCategory::kOther);
    png_ = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &ctx_, png_fail, png_warn, &ctx_, tracked_png_malloc,
                                    tracked_png_free);
    if (!png_) return Status(ErrorKind::kOutOfMemory, image_ + ": out of memory opening the PNG decoder");
    info_ = png_create_info_struct(png_);
    if (!info_) return Status(ErrorKind::kOutOfMemory, image_ + ": out of memory opening the PNG decoder");
    if (setjmp(png_jmpbuf(png_))) return failure();
    // Darknet (stb_image) decodes what libpng would refuse over a bad checksum; so do we.
    png_set_crc_action(png_, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
#if defined(PNG_SET_OPTION_SUPPORTED) && defined(PNG_IGNORE_ADLER32)
    // Nor the zlib stream's Adler-32 (stb_image does not check it either); zlib then skips
    // computing it: 4.3 M instructions per dog.png on aarch64, 3% of Yolo-Fastest's inference.
    png_set_option(png_, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
    png_set_user_limits(png_, 0x7fffffff, 0x7fffffff);
    std::rewind(fp);
    png_init_io(png_, fp);
    png_read_info(png_, info_);
    png_uint_32 w = 0, h = 0;
    int depth = 0, colour = 0, interlace = 0;
    png_get_IHDR(png_, info_, &w, &h, &depth, &colour, &interlace, nullptr, nullptr);
    if (interlace != PNG_INTERLACE_NONE) {
      // Held whole: the whole-image pixel limit applies, not the row decoders'.
      if (max_pixels == 0 && (long long)w * h > kMaxImagePixels)
        return pixel_limit_error(image_, w, h, kMaxImagePixels, false, true);
      passes_ = png_set_interlace_handling(png_);
    }
    if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png_);
    if (colour == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png_);
    if (depth == 16) png_set_strip_16(png_);
    if (colour == PNG_COLOR_TYPE_GRAY || colour == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png_);
    if (colour & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png_);
    png_read_update_info(png_, info_);
    if (png_get_rowbytes(png_, info_) != size_t(w) * 3)
      return Status(ErrorKind::kImage, image_ + ": PNG rows do not convert to 8-bit RGB");
    w_ = image_w_ = int(w);
    h_ = image_h_ = int(h);
    if (passes_ > 1) {
      auto whole = Buffer::make(*ctx_.mem, (size_t(w) * h * 3 + 3) / 4, MemCategory::kOther, "the interlaced PNG's image");
      if (!whole.ok()) return whole.status();
      whole_ = std::move(*whole);
    }
    // zlib's inflate state and 32 kB window are allocated by the first row (through our hooks):
    // counted in the figure the plan uses, before they exist.
    working_ = ctx_.mem->current().of(MemCategory::kOther) - before + kInflateBytes;
    return Status::Ok();
  }

  Status read_row(uint8_t* rgb) override {
    if (passes_ <= 1) return next_row(rgb);
    auto* all = reinterpret_cast<uint8_t*>(whole_.data());
    const size_t stride = size_t(w_) * 3;
    if (next_ == 0)  // each pass adds its pixels to the rows already in the image
      for (int pass = 0; pass < passes_; ++pass)
        for (int y = 0; y < h_; ++y) MDFI_RETURN_IF_ERROR(next_row(all + size_t(y) * stride));
    std::memcpy(rgb, all + size_t(next_++) * stride, stride);
    return Status::Ok();
  }

  // inflate_state (about 7 kB on 64-bit) plus the 32 kB window, each with our block header.
  static constexpr size_t kInflateBytes = 7160 + 32768 + 2 * kBlockHeader;

 private:
  Status failure() {
    if (ctx_.out_of_memory) return Status(ErrorKind::kOutOfMemory, image_ + ": out of memory decoding the PNG");
    return Status(ErrorKind::kImage, image_ + ": corrupt or truncated PNG (" + ctx_.message + ")");
  }

  Status next_row(uint8_t* row) {
    if (setjmp(png_jmpbuf(png_))) return failure();
    png_read_row(png_, row, nullptr);
    return Status::Ok();
  }

  PngContext ctx_;
  std::string image_;
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
  int passes_ = 1, next_ = 0;
  Buffer whole_;  // an interlaced file's image
};

}  // namespace

Result<std::unique_ptr<RowDecoder>> open_png_decoder(const ImageBytes& src, MemoryTracker& mem, long long max_pixels) {
  auto dec = std::make_unique<PngRows>(mem, src.name);
  MDFI_RETURN_IF_ERROR(dec->open(src.file, max_pixels));
  return std::unique_ptr<RowDecoder>(std::move(dec));
}

}  // namespace mdfi
