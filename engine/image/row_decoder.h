// Image decoders that hand out one row of 8-bit interleaved RGB at a time, so no
// full-resolution image buffer exists unless the format forces one:
//   JPEG - libjpeg-turbo's scanline API (SIMD, and DCT-domain scaling for --fast-decode); CMYK
//          and YCCK files too (CMYK rows turned into RGB as stb_image does); a progressive file
//          holds its whole DCT coefficient buffer (coefficient_bytes());
//   PNG  - libpng's row API (an interlaced file is combined into one RGB image first);
//   the rest (BMP, TGA, GIF, and JPEG under --decoder stb) - stb_image's whole-image decode,
//          rows handed out from its buffer.
// Every decoder's own allocations are counted in the MemoryTracker (libpng and stb through
// their allocator hooks, libjpeg through its memory manager's request sizes), and opening a
// decoder reads only the header and sets the decoder up: working_bytes() is then known before
// a single pixel is decoded, which is what --max-mem and `mdfi plan IMAGE` check.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "memory.h"

namespace mdfi {

// Where the compressed bytes come from: a seekable stream positioned anywhere (decoders read
// from its start): a regular file, or bytes already in memory (a pipe, a frame of an MJPEG
// stream) through fmemopen(). `name` is what error messages call it. The caller closes it.
struct ImageBytes {
  std::string name;
  std::FILE* file = nullptr;
};

enum class JpegDecoder { kLibjpeg, kStb };

struct DecodeOptions {
  JpegDecoder jpeg = JpegDecoder::kLibjpeg;
  // --fast-decode: decode a JPEG at the smallest DCT scale (1/8, 1/4, 1/2) whose size is still
  // at least what the resize needs: the letterboxed size (letterbox) or net_w x net_h.
  bool fast = false;
  int net_w = 0, net_h = 0;
  bool letterbox = true;
  bool exif_rotate = false;  // --exif-rotate: apply a JPEG's EXIF orientation
  // With a budget: the most the decoder may hold; a progressive JPEG whose coefficient buffer
  // alone is larger is refused (kBudget) before that buffer is allocated. 0 = no limit.
  size_t max_working_bytes = 0;
  // --max-pixels: the most pixels an image may declare, whatever its decoder; 0 = each
  // decoder's default (kMaxRowImagePixels for row decoders, kMaxImagePixels for whole ones).
  long long max_pixels = 0;
};

class RowDecoder {
 public:
  virtual ~RowDecoder() = default;
  // The rows this decoder delivers (after DCT scaling), as stored: before EXIF rotation.
  int width() const { return w_; }
  int height() const { return h_; }
  // The image's own size (before DCT scaling; after EXIF rotation): what boxes are reported in.
  int image_width() const { return image_w_; }
  int image_height() const { return image_h_; }
  // The EXIF orientation (2..8, TIFF's definitions) the rows are still to be turned by, 1 for
  // none: the resize applies it (ResizeTarget::orientation), so no decoded photo is held to turn it.
  int orientation() const { return orientation_; }
  // A progressive JPEG's whole DCT coefficient buffer, held while it is decoded (part of
  // working_bytes(), whatever the DCT scale); 0 for every other decoder.
  virtual size_t coefficient_bytes() const { return 0; }
  // Decoder memory held now (tracked): its tables, row buffers, whole-image buffers if any.
  size_t working_bytes() const { return working_; }
  const char* name() const { return name_; }
  // The next row, width() x 3 bytes. An error names the image and what is wrong with it.
  virtual Status read_row(uint8_t* rgb) = 0;
  // What the decoder noticed without failing (corrupt data it decoded past, an EXIF orientation
  // left unapplied), one line each; complete once every row has been read.
  virtual std::vector<std::string> warnings() const { return {}; }

 protected:
  int w_ = 0, h_ = 0, image_w_ = 0, image_h_ = 0, orientation_ = 1;
  size_t working_ = 0;
  const char* name_ = "";
};

// Opens the right decoder for the bytes (by signature, not by file name) and reads the header.
Result<std::unique_ptr<RowDecoder>> open_row_decoder(const ImageBytes& src, const DecodeOptions& opt,
                                                     MemoryTracker& mem);

// The individual decoders (row_decoder.cpp chooses among them).
Result<std::unique_ptr<RowDecoder>> open_jpeg_decoder(const ImageBytes& src, const DecodeOptions& opt,
                                                      MemoryTracker& mem);
// max_pixels: as DecodeOptions (0: an interlaced file, held whole, gets kMaxImagePixels).
Result<std::unique_ptr<RowDecoder>> open_png_decoder(const ImageBytes& src, MemoryTracker& mem, long long max_pixels);
Result<std::unique_ptr<RowDecoder>> open_stb_decoder(const ImageBytes& src, MemoryTracker& mem, long long max_pixels);

}  // namespace mdfi
