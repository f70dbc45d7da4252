#include "layer_catalog.h"

namespace mdfi {

const std::vector<LayerDoc>& layer_catalog() {
  static const std::vector<LayerDoc> docs = {
      {"net", "width, height, channels, letter_box (AlexeyAB)",
       "input size; batch is always 1; training keys are accepted and ignored"},
      {"convolutional", "filters, size, stride, pad, padding, groups, batch_normalize, activation",
       "grouped conv, batch-norm with the compat's epsilon, bias, activation"},
      {"connected", "output, batch_normalize, activation", "fully connected over the flattened input"},
      {"maxpool", "size, stride, padding, maxpool_depth, out_channels (AlexeyAB)", "max pooling, or across channels"},
      {"avgpool", "", "global average pool"},
      {"route", "layers, groups, group_id (AlexeyAB)", "channel concatenation, or one channel slice per source"},
      {"shortcut", "from, alpha, beta, activation; AlexeyAB: from list, weights_type, weights_normalization",
       "residual add (pjreddie strided form, or AlexeyAB weighted multi-source form)"},
      {"upsample", "stride, scale", "nearest-neighbour upsampling"},
      {"yolo", "mask, anchors, num, classes; AlexeyAB: scale_x_y, new_coords, nms_kind, beta_nms",
       "YOLOv3 head (logistic x, y, objectness, classes)"},
      {"region", "anchors, num, classes, coords, softmax, background (tree refused)",
       "YOLOv2 head (logistic x, y, objectness; softmax or logistic classes)"},
      {"reorg", "stride, reverse, flatten, extra", "space-to-depth in Darknet's channel order"},
      {"detection", "classes, coords, num, side, softmax, sqrt", "YOLOv1 head over a connected layer's output"},
      {"local", "filters, size, stride, pad, activation", "locally connected layer (unshared filters)"},
      {"crop", "crop_width, crop_height, noadjust", "centre crop, mapped to [-1,1] unless noadjust=1"},
      {"batchnorm", "", "standalone batch-norm: scales, rolling mean and variance"},
      {"normalization", "size, alpha, beta, kappa", "local response normalisation across channels"},
      {"dropout", "probability", "identity at inference"},
      {"cost", "type", "identity at inference"},
      {"softmax", "groups, temperature", "softmax over groups of the flattened input (tree refused)"},
      {"scale_channels", "from, scale_wh, activation", "AlexeyAB squeeze-excitation: per-channel multiply"},
      {"sam", "from, activation", "AlexeyAB spatial attention: element-wise multiply"},
  };
  return docs;
}

}  // namespace mdfi
