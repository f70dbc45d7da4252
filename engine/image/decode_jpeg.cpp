// JPEG rows through libjpeg-turbo: the scanline API keeps only a few MCU rows in memory (a
// progressive file needs its DCT coefficients, which are counted), its SIMD decoder is several
// times faster than stb_image's, and DCT-domain scaling (--fast-decode) skips most of the work
// for a photo much larger than the network input.
//
// Counting: libjpeg allocates through its memory manager object, whose methods we wrap so each
// request's size (plus the pool and header overhead jmemmgr adds) goes to the MemoryTracker.
// Error handling: libjpeg reports errors by calling error_exit, which must not return; we
// longjmp back into the method that called libjpeg, which keeps no C++ objects alive across it.
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include <jpeglib.h>
#include <jerror.h>

#include "image.h"
#include "row_decoder.h"

namespace mdfi {

namespace {

struct Counting;

struct ErrorTrap {
  jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

// Sizes as libjpeg-turbo's jmemmgr rounds them: rows aligned to 64 bytes, each large block
// with its pool header, small objects carved from pooled chunks with slop.
constexpr size_t kLargeHeader = 32;
constexpr size_t kFirstSlop[2] = {1600, 16000}, kExtraSlop[2] = {0, 5000};

struct Counting {
  jpeg_memory_mgr original;
  MemoryTracker* mem = nullptr;
  size_t pool_bytes[2] = {0, 0};       // charged per pool (JPOOL_PERMANENT, JPOOL_IMAGE)
  size_t small_room[2] = {0, 0};       // left in the current small chunk
  bool small_started[2] = {false, false};
  bool failed = false;

  void charge(int pool, size_t bytes) {
    if (pool < 0 || pool > 1) pool = 1;
    if (!mem->account(bytes, MemCategory::kOther)) failed = true;
    pool_bytes[pool] += bytes;
  }
  void charge_small(int pool, size_t bytes) {
    if (pool < 0 || pool > 1) pool = 1;
    bytes = (bytes + 15) / 16 * 16;
    if (bytes > small_room[pool]) {
      const size_t slop = small_started[pool] ? kExtraSlop[pool] : kFirstSlop[pool];
      small_started[pool] = true;
      charge(pool, bytes + slop + kLargeHeader);
      small_room[pool] = bytes + slop;
    }
    small_room[pool] -= bytes;
  }
  void free_pool(int pool) {
    if (pool < 0 || pool > 1) return;
    mem->unaccount(pool_bytes[pool], MemCategory::kOther);
    pool_bytes[pool] = 0;
    small_room[pool] = 0;
    small_started[pool] = false;
  }
};

// The decompress struct and our bookkeeping in one allocation, found from cinfo->client_data.
struct JpegState {
  jpeg_decompress_struct cinfo;
  ErrorTrap trap;
  Counting counting;
  int corrupt_warnings = 0;     // libjpeg's warnings about data it decoded past
  char first_corrupt[JMSG_LENGTH_MAX] = {};
};

Counting& counting_of(j_common_ptr cinfo) { return static_cast<JpegState*>(cinfo->client_data)->counting; }

size_t row_bytes(JDIMENSION samples) { return (size_t(samples) + 63) / 64 * 64; }

void* count_small(j_common_ptr c, int pool, size_t n) {
  counting_of(c).charge_small(pool, n);
  return counting_of(c).original.alloc_small(c, pool, n);
}
void* count_large(j_common_ptr c, int pool, size_t n) {
  counting_of(c).charge(pool, n + kLargeHeader);
  return counting_of(c).original.alloc_large(c, pool, n);
}
JSAMPARRAY count_sarray(j_common_ptr c, int pool, JDIMENSION samples, JDIMENSION rows) {
  counting_of(c).charge(pool, row_bytes(samples) * rows + kLargeHeader);
  counting_of(c).charge_small(pool, rows * sizeof(JSAMPROW));
  return counting_of(c).original.alloc_sarray(c, pool, samples, rows);
}
JBLOCKARRAY count_barray(j_common_ptr c, int pool, JDIMENSION blocks, JDIMENSION rows) {
  counting_of(c).charge(pool, size_t(blocks) * rows * sizeof(JBLOCK) + kLargeHeader);
  counting_of(c).charge_small(pool, rows * sizeof(JBLOCKROW));
  return counting_of(c).original.alloc_barray(c, pool, blocks, rows);
}
// Virtual arrays are realised whole in memory (Debian's libjpeg has no backing store), by
// jmemmgr calling its own allocators: charged here, at the request.
jvirt_sarray_ptr count_virt_sarray(j_common_ptr c, int pool, boolean zero, JDIMENSION samples, JDIMENSION rows,
                                   JDIMENSION access) {
  counting_of(c).charge(pool, row_bytes(samples) * rows + kLargeHeader + rows * sizeof(JSAMPROW));
  return counting_of(c).original.request_virt_sarray(c, pool, zero, samples, rows, access);
}
jvirt_barray_ptr count_virt_barray(j_common_ptr c, int pool, boolean zero, JDIMENSION blocks, JDIMENSION rows,
                                   JDIMENSION access) {
  counting_of(c).charge(pool, size_t(blocks) * rows * sizeof(JBLOCK) + kLargeHeader + rows * sizeof(JBLOCKROW));
  return counting_of(c).original.request_virt_barray(c, pool, zero, blocks, rows, access);
}
void count_free_pool(j_common_ptr c, int pool) {
  counting_of(c).original.free_pool(c, pool);
  counting_of(c).free_pool(pool);
}

[[noreturn]] void jump_out(j_common_ptr c) {
  auto* trap = reinterpret_cast<ErrorTrap*>(c->err);
  (*c->err->format_message)(c, trap->message);
  std::longjmp(trap->jump, 1);
}

// Warnings that mean the data ends early or is cut: an error for us (stb reports them too, and
// a truncated frame of a stream must become an error record, not a grey half image).
// Other warnings (extraneous bytes before a marker, a bad Huffman code, a bad DCT coefficient)
// mean libjpeg decoded past corrupt data: counted, the first one kept, for the record.
void on_message(j_common_ptr c, int level) {
  if (level != -1) return;  // trace messages
  if (c->err->msg_code == JWRN_JPEG_EOF || c->err->msg_code == JWRN_HIT_MARKER) jump_out(c);
  auto* s = static_cast<JpegState*>(c->client_data);
  if (s->corrupt_warnings++ == 0) (*c->err->format_message)(c, s->first_corrupt);
}

// The EXIF orientation tag (0x0112) of an APP1 "Exif" segment; 1 when absent or unreadable.
int exif_orientation(const jpeg_saved_marker_ptr markers) {
  for (jpeg_saved_marker_ptr m = markers; m; m = m->next) {
    if (m->marker != JPEG_APP0 + 1 || m->data_length < 14 || std::memcmp(m->data, "Exif\0\0", 6) != 0) continue;
    const uint8_t* t = m->data + 6;
    const size_t n = m->data_length - 6;
    const bool le = t[0] == 'I' && t[1] == 'I';
    if (!le && !(t[0] == 'M' && t[1] == 'M')) return 1;
    auto u16 = [&](size_t at) -> unsigned { return le ? t[at] | t[at + 1] << 8 : t[at] << 8 | t[at + 1]; };
    auto u32 = [&](size_t at) -> size_t {
      return le ? size_t(t[at]) | size_t(t[at + 1]) << 8 | size_t(t[at + 2]) << 16 | size_t(t[at + 3]) << 24
                : size_t(t[at]) << 24 | size_t(t[at + 1]) << 16 | size_t(t[at + 2]) << 8 | size_t(t[at + 3]);
    };
    const size_t ifd = u32(4);
    if (ifd + 2 > n) return 1;
    const unsigned entries = u16(ifd);
    for (unsigned i = 0; i < entries; ++i) {
      const size_t e = ifd + 2 + size_t(i) * 12;
      if (e + 12 > n) return 1;
      if (u16(e) == 0x0112) {
        const unsigned v = u16(e + 8);
        return v >= 1 && v <= 8 ? int(v) : 1;
      }
    }
  }
  return 1;
}

// x * y / 255 rounded, as stb_image's stbi__blinn_8x8 computes it.
inline uint8_t mul255(unsigned x, unsigned y) {
  const unsigned t = x * y + 128;
  return uint8_t((t + (t >> 8)) >> 8);
}

// A row of libjpeg's CMYK output turned into RGB. With an Adobe APP14 marker (Photoshop's files,
// and every CMYK or YCCK file libjpeg writes) the samples are stored inverted, 255 meaning no
// ink: R = C * K / 255, stb_image's formula for both its CMYK and its YCCK case (libjpeg's YCCK
// output is stb's inverted RGB), so the two decoders differ only by their IDCT and upsampling.
// Without the marker libjpeg reads the samples as plain CMYK, ink = value: R = (255 - C)(255 - K)
// / 255. (stb_image reads such a file as YCbCr and ignores K.)
void cmyk_to_rgb(const uint8_t* cmyk, uint8_t* rgb, int w, bool inverted) {
  const unsigned flip = inverted ? 0 : 255;
  for (int x = 0; x < w; ++x, cmyk += 4, rgb += 3) {
    const unsigned k = cmyk[3] ^ flip;
    rgb[0] = mul255(cmyk[0] ^ flip, k);
    rgb[1] = mul255(cmyk[1] ^ flip, k);
    rgb[2] = mul255(cmyk[2] ^ flip, k);
  }
}

class JpegRows final : public RowDecoder {
 public:
  JpegRows(MemoryTracker& mem, std::string name) : mem_(mem), image_(std::move(name)) { name_ = "libjpeg-turbo"; }
  ~JpegRows() override {
    if (!state_) return;
    if (created_) jpeg_destroy_decompress(&state_->cinfo);  // frees every pool (counted)
    for (int p = 0; p < 2; ++p) state_->counting.free_pool(p);
    state_.reset();
    mem_.unaccount(sizeof(JpegState), MemCategory::kOther);
  }

  // Reads the header and sets up decoding; no pixel is decoded.
  Status open(std::FILE* fp, const DecodeOptions& opt) {
    if (!mem_.account(sizeof(JpegState), MemCategory::kOther))
      return Status(ErrorKind::kOutOfMemory, image_ + ": out of memory opening the JPEG decoder");
    state_ = std::make_unique<JpegState>();
    JpegState& s = *state_;
    s.cinfo.err = jpeg_std_error(&s.trap.mgr);
    s.trap.mgr.error_exit = jump_out;
    s.trap.mgr.emit_message = on_message;
    s.cinfo.client_data = &s;
    if (setjmp(s.trap.jump)) return failure();
    jpeg_create_decompress(&s.cinfo);
    created_ = true;
    s.counting.mem = &mem_;
    s.counting.original = *s.cinfo.mem;
    s.cinfo.mem->alloc_small = count_small;
    s.cinfo.mem->alloc_large = count_large;
    s.cinfo.mem->alloc_sarray = count_sarray;
    s.cinfo.mem->alloc_barray = count_barray;
    s.cinfo.mem->request_virt_sarray = count_virt_sarray;
    s.cinfo.mem->request_virt_barray = count_virt_barray;
    s.cinfo.mem->free_pool = count_free_pool;
    std::rewind(fp);
    jpeg_stdio_src(&s.cinfo, fp);
    // The orientation tag sits at the start of EXIF's first directory: without --exif-rotate its
    // first 4 kB are enough to say the photo is stored turned.
    jpeg_save_markers(&s.cinfo, JPEG_APP0 + 1, opt.exif_rotate ? 0xFFFF : 4096);
    jpeg_read_header(&s.cinfo, TRUE);
    // CMYK and YCCK come out of libjpeg as CMYK rows (YCCK's YCC turned into CMY) and are turned
    // into RGB here, a row at a time (cmyk_to_rgb).
    cmyk_ = s.cinfo.jpeg_color_space == JCS_CMYK || s.cinfo.jpeg_color_space == JCS_YCCK;
    inverted_ = s.cinfo.saw_Adobe_marker;
    const int stored = exif_orientation(s.cinfo.marker_list);
    orientation_ = opt.exif_rotate ? stored : 1;
    if (!opt.exif_rotate && stored != 1)
      unapplied_orientation_ = "EXIF orientation " + std::to_string(stored) + " (stored " +
                               (stored == 3 || stored == 4 ? "upside down" : stored >= 5 ? "turned sideways" : "mirrored") +
                               ") left unapplied, as Darknet does; --exif-rotate turns the photo upright first";
    image_w_ = int(s.cinfo.image_width);
    image_h_ = int(s.cinfo.image_height);
    s.cinfo.out_color_space = cmyk_ ? JCS_CMYK : JCS_RGB;
    if (opt.fast && opt.net_w > 0 && opt.net_h > 0) {
      // The rows are turned by the resize, so a transposing orientation swaps the sides.
      const bool swap = orientation_ >= 5;
      const int rw = swap ? image_h_ : image_w_, rh = swap ? image_w_ : image_h_;
      int need_w = opt.net_w, need_h = opt.net_h;
      if (opt.letterbox) letterbox_size(rw, rh, opt.net_w, opt.net_h, &need_w, &need_h);
      if (swap) std::swap(need_w, need_h);
      for (unsigned denom : {8u, 4u, 2u}) {
        const long w = (long(image_w_) + denom - 1) / denom, h = (long(image_h_) + denom - 1) / denom;
        if (w >= need_w && h >= need_h) {
          s.cinfo.scale_num = 1;
          s.cinfo.scale_denom = denom;
          break;
        }
      }
      // The opt-in fast path is not bit-identical anyway: libjpeg's faster integer IDCT and
      // plain (box) chroma upsampling cost less than its exact defaults.
      s.cinfo.dct_method = JDCT_IFAST;
      s.cinfo.do_fancy_upsampling = FALSE;
    }
    // A progressive file would be absorbed whole by jpeg_start_decompress; in buffered-image
    // mode the setup (and its coefficient buffer, counted) comes first and the data is read
    // on the first row, after the caller has checked the budget.
    progressive_ = jpeg_has_multiple_scans(&s.cinfo);
    // A progressive file holds the whole image's coefficients: the whole-image limit applies,
    // not the row decoder's. (An EXIF rotation is applied by the resize: rows as stored.)
    if (progressive_ && opt.max_pixels == 0 &&
        (long long)image_w_ * image_h_ > kMaxImagePixels)
      return pixel_limit_error(image_, image_w_, image_h_, kMaxImagePixels, false, true);
    if (progressive_) {
      // Its whole DCT coefficient buffer (jdcoefct.c: each component's blocks, rounded up to its
      // sampling factors, 128 bytes each) is allocated by jpeg_start_decompress, whatever the
      // DCT scale: under a budget it is refused first.
      for (int ci = 0; ci < s.cinfo.num_components; ++ci) {
        const jpeg_component_info& c = s.cinfo.comp_info[ci];
        const size_t bw = (size_t(c.width_in_blocks) + c.h_samp_factor - 1) / c.h_samp_factor * c.h_samp_factor;
        const size_t bh = (size_t(c.height_in_blocks) + c.v_samp_factor - 1) / c.v_samp_factor * c.v_samp_factor;
        coefficient_bytes_ += bw * bh * sizeof(JBLOCK);
      }
      if (opt.max_working_bytes && coefficient_bytes_ > opt.max_working_bytes)
        return Status(ErrorKind::kBudget, image_ + ": this progressive JPEG needs " + format_bytes(coefficient_bytes_) +
                                              " for its DCT coefficients alone, over what --max-mem leaves (" +
                                              format_bytes(opt.max_working_bytes) +
                                              "; --fast-decode does not shrink them); refused before decoding");
    }
    s.cinfo.buffered_image = progressive_ ? TRUE : FALSE;
    jpeg_start_decompress(&s.cinfo);
    if (s.counting.failed) return Status(ErrorKind::kOutOfMemory, image_ + ": out of memory setting up the JPEG decoder");
    w_ = int(s.cinfo.output_width);
    h_ = int(s.cinfo.output_height);
    if (s.cinfo.output_components != (cmyk_ ? 4 : 3))
      return Status(ErrorKind::kImage, image_ + ": JPEG decodes to " + std::to_string(s.cinfo.output_components) +
                                           " channels, not " + (cmyk_ ? "CMYK" : "RGB"));
    if (cmyk_) {
      auto row = Buffer::make(mem_, size_t(w_), MemCategory::kOther, "a CMYK row");  // 4 bytes a pixel
      if (!row.ok()) return row.status();
      cmyk_row_ = std::move(*row);
    }
    working_ = mem_.current().of(MemCategory::kOther) - other_before_;
    if (orientation_ >= 5) std::swap(image_w_, image_h_);  // the photo's size as it is viewed
    return Status::Ok();
  }

  Status read_row(uint8_t* rgb) override {
    if (!cmyk_) return scan_row(rgb);
    auto* cmyk = reinterpret_cast<uint8_t*>(cmyk_row_.data());
    MDFI_RETURN_IF_ERROR(scan_row(cmyk));
    cmyk_to_rgb(cmyk, rgb, w_, inverted_);
    return Status::Ok();
  }

  size_t coefficient_bytes() const override { return coefficient_bytes_; }

  void set_baseline(size_t other_before) { other_before_ = other_before; }

 private:
  // The next row as libjpeg delivers it (RGB, or CMYK for a CMYK or YCCK file).
  Status scan_row(uint8_t* out) {
    JpegState& s = *state_;
    if (setjmp(s.trap.jump)) return failure();
    if (progressive_ && !output_started_) {
      while (true) {
        const int r = jpeg_consume_input(&s.cinfo);
        if (r == JPEG_REACHED_EOI || r == JPEG_SUSPENDED) break;
      }
      jpeg_start_output(&s.cinfo, s.cinfo.input_scan_number);
      output_started_ = true;
    }
    JSAMPROW row = out;
    if (jpeg_read_scanlines(&s.cinfo, &row, 1) != 1)
      return Status(ErrorKind::kImage, image_ + ": corrupt or truncated JPEG (no more rows)");
    return Status::Ok();
  }

 public:
  std::vector<std::string> warnings() const override {
    std::vector<std::string> w;
    if (!unapplied_orientation_.empty()) w.push_back(unapplied_orientation_);
    if (state_ && state_->corrupt_warnings > 0)
      w.push_back("corrupt JPEG data decoded past (" + std::string(state_->first_corrupt) +
                  (state_->corrupt_warnings > 1 ? "; " + std::to_string(state_->corrupt_warnings) + " warnings in all" : "") +
                  "): parts of the picture may be garbage");
    return w;
  }

 private:
  Status failure() {
    const std::string why = state_->trap.message;
    if (state_->counting.failed || why.find("Insufficient memory") != std::string::npos)
      return Status(ErrorKind::kOutOfMemory, image_ + ": out of memory decoding the JPEG");
    return Status(ErrorKind::kImage, image_ + ": corrupt or truncated JPEG (" + why + ")");
  }

  MemoryTracker& mem_;
  std::string image_;
  std::unique_ptr<JpegState> state_;
  bool created_ = false, progressive_ = false, output_started_ = false;
  bool cmyk_ = false, inverted_ = false;
  Buffer cmyk_row_;  // libjpeg's CMYK row before cmyk_to_rgb
  size_t coefficient_bytes_ = 0;
  size_t other_before_ = 0;
  std::string unapplied_orientation_;
};

}  // namespace

Result<std::unique_ptr<RowDecoder>> open_jpeg_decoder(const ImageBytes& src, const DecodeOptions& opt,
                                                      MemoryTracker& mem) {
  auto dec = std::make_unique<JpegRows>(mem, src.name);
  dec->set_baseline(mem.current().of(MemCategory::kOther));
  MDFI_RETURN_IF_ERROR(dec->open(src.file, opt));
  return std::unique_ptr<RowDecoder>(std::move(dec));
}

}  // namespace mdfi
