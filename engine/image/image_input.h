// An image turned into the network input: decoded row by row and letterboxed (or resized) as
// the rows arrive, straight into the network's input buffer. Opening reads only the header and
// sets up the decoder and the resizer, so the whole preprocessing memory (setup_bytes() plus
// the input itself) is known - and can be checked against a budget - before any pixel is
// decoded; `mdfi plan IMAGE` reports the same figure.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "row_decoder.h"
#include "row_resize.h"

namespace mdfi {

struct NetworkInputSpec {
  int w = 0, h = 0, c = 3;
  bool letterbox = true;  // Darknet's letterbox_image (aspect kept, 0.5 border), else resize_image
};

class ImageInput {
 public:
  static Result<ImageInput> open(const ImageBytes& src, const NetworkInputSpec& net, DecodeOptions opt,
                                 MemoryTracker& mem);

  int image_width() const { return decoder_->image_width(); }
  int image_height() const { return decoder_->image_height(); }
  // The decoded size (after DCT scaling) as the photo is viewed (after its EXIF turn).
  int decoded_width() const { return decoder_->orientation() >= 5 ? decoder_->height() : decoder_->width(); }
  int decoded_height() const { return decoder_->orientation() >= 5 ? decoder_->width() : decoder_->height(); }
  // A progressive JPEG's whole DCT coefficient buffer (RowDecoder::coefficient_bytes), else 0.
  size_t coefficient_bytes() const { return decoder_->coefficient_bytes(); }
  const char* decoder_name() const { return decoder_->name(); }
  // The decoder's warnings (RowDecoder::warnings), complete after decode().
  std::vector<std::string> warnings() const { return decoder_->warnings(); }
  // Decoder, row and resizer memory held before decoding starts (the input buffer excluded).
  size_t setup_bytes() const { return setup_bytes_; }
  // The decoder's own part of it (libjpeg's and libpng's buffers live outside any arena).
  size_t decoder_bytes() const { return decoder_->working_bytes(); }
  // setup_bytes() plus the network input: the preprocessing peak.
  size_t peak_bytes() const { return setup_bytes_ + input_bytes_; }

  // Decodes every row into a new network input buffer of category `cat`.
  Result<Buffer> decode(MemCategory cat);

 private:
  std::unique_ptr<RowDecoder> decoder_;
  NetworkInputSpec net_;
  MemoryTracker* mem_ = nullptr;
  Buffer row_;
  ResizeTarget target_;
  size_t setup_bytes_ = 0, input_bytes_ = 0;
  std::string name_;
};

}  // namespace mdfi
