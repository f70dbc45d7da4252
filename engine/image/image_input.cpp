#include "image_input.h"

#include <algorithm>

#include "image.h"

namespace mdfi {

Result<ImageInput> ImageInput::open(const ImageBytes& src, const NetworkInputSpec& net, DecodeOptions opt,
                                    MemoryTracker& mem) {
  if (net.c != 3)
    return Result<ImageInput>(ErrorKind::kImage, src.name + ": network wants " + std::to_string(net.c) +
                                                     " channels, images decode to 3 (RGB)");
  ImageInput in;
  in.net_ = net;
  in.mem_ = &mem;
  in.name_ = src.name;
  opt.net_w = net.w;
  opt.net_h = net.h;
  opt.letterbox = net.letterbox;
  MDFI_ASSIGN_OR_RETURN(auto dec, open_row_decoder(src, opt, mem));
  in.decoder_ = std::move(dec);
  const int w = in.decoder_->width(), h = in.decoder_->height();
  MDFI_ASSIGN_OR_RETURN(auto row, Buffer::make(mem, (size_t(w) * 3 + 3) / 4, MemCategory::kOther, "a decoded row"));
  in.row_ = std::move(row);
  in.target_.out_w = net.w;
  in.target_.out_h = net.h;
  // Letterboxed as the photo is viewed (after its EXIF turn); resized as its rows are stored.
  const int o = in.decoder_->orientation();
  const bool swap = o >= 5;
  int up_w = net.w, up_h = net.h;  // the resized block as viewed
  if (net.letterbox) {
    letterbox_size(swap ? h : w, swap ? w : h, net.w, net.h, &up_w, &up_h);
    in.target_.off_x = (net.w - up_w) / 2;
    in.target_.off_y = (net.h - up_h) / 2;
  }
  in.target_.dst_w = swap ? up_h : up_w;
  in.target_.dst_h = swap ? up_w : up_h;
  in.target_.orientation = o;
  in.setup_bytes_ = in.decoder_->working_bytes() + in.row_.bytes() + RowResizer::working_bytes(in.target_.dst_w);
  in.input_bytes_ = size_t(net.w) * net.h * 3 * sizeof(float);
  return in;
}

Result<Buffer> ImageInput::decode(MemCategory cat) {
  auto input = Buffer::make(*mem_, size_t(net_.w) * net_.h * 3, cat, "the network input");
  if (!input.ok()) return input;
  if (net_.letterbox) std::fill(input->data(), input->data() + input->size(), .5f);
  ResizeTarget t = target_;
  t.out = input->data();
  MDFI_ASSIGN_OR_RETURN(auto resizer, RowResizer::make(decoder_->width(), decoder_->height(), t, *mem_));
  auto* row = reinterpret_cast<uint8_t*>(row_.data());
  for (int y = 0; y < decoder_->height(); ++y) {
    MDFI_RETURN_IF_ERROR(decoder_->read_row(row));
    resizer.push_row(row);
  }
  if (!resizer.done())
    return Result<Buffer>(ErrorKind::kImage, name_ + ": the image ended before the resize was complete");
  return input;
}

}  // namespace mdfi
