#include "compat.h"

#include <cstring>

#include "activation.h"

namespace mdfi {
namespace {

// Sections pjreddie Darknet (2018) does not have.
const char* const kAlexeyABSections[] = {"scale_channels", "sam", "gaussian_yolo", "conv_lstm", "implicit_add",
                                         "implicit_mul", "empty", "silence", "contrastive"};

// Keys only AlexeyAB reads, with the section they belong to ("" = any section). Conv `groups` is
// pjreddie too, so `groups` only counts in [route].
struct KeyInSection {
  const char* section;
  const char* key;
};
const KeyInSection kAlexeyABKeys[] = {
    {"", "nms_kind"},         {"", "beta_nms"},       {"", "scale_x_y"},        {"", "iou_loss"},
    {"", "iou_normalizer"},   {"", "cls_normalizer"}, {"", "obj_normalizer"},   {"", "iou_thresh"},
    {"", "new_coords"},       {"", "max_delta"},      {"", "label_smooth_eps"}, {"", "objectness_smooth"},
    {"", "counters_per_class"}, {"", "focal_loss"},   {"net", "letter_box"},    {"net", "mosaic"},
    {"net", "mixup"},         {"net", "cutmix"},      {"net", "blur"},          {"net", "gaussian_noise"},
    {"net", "ema_alpha"},     {"net", "use_cuda_graph"}, {"net", "dynamic_minibatch"},
    {"net", "optimized_memory"}, {"route", "groups"}, {"route", "group_id"},   {"shortcut", "weights_type"},
    {"shortcut", "weights_normalization"}, {"maxpool", "maxpool_depth"}, {"convolutional", "antialiasing"}, {"convolutional", "dilation"},
    {"convolutional", "stride_x"},  {"convolutional", "stride_y"},
    {"convolutional", "share_index"},
};

}  // namespace

bool parse_compat(const std::string& name, Compat* out) {
  if (name == "pjreddie") *out = Compat::kPjreddie;
  else if (name == "alexeyab") *out = Compat::kAlexeyAB;
  else if (name == "auto") *out = Compat::kAuto;
  else return false;
  return true;
}

std::string first_alexeyab_feature(const CfgFile& cfg) {
  for (const CfgSection& sec : cfg.sections) {
    const std::string where = cfg.path + ":" + std::to_string(sec.line);
    for (const char* s : kAlexeyABSections)
      if (sec.name == s) return where + ": section [" + sec.raw_name + "]";
    for (const CfgOption& opt : sec.options) {
      const std::string at = cfg.path + ":" + std::to_string(opt.line);
      for (const KeyInSection& k : kAlexeyABKeys)
        if (opt.key == k.key && (k.section[0] == '\0' || sec.name == k.section))
          return at + ": key '" + opt.key + "' in [" + sec.raw_name + "]";
      Activation a;
      if (opt.key == "activation" && parse_activation(opt.value, &a) && is_alexeyab_activation(a))
        return at + ": activation '" + opt.value + "'";
    }
  }
  return "";
}

CompatChoice resolve_compat(const CfgFile& cfg, Compat requested) {
  CompatChoice c;
  if (requested != Compat::kAuto) {
    c.compat = requested;
    c.reason = std::string("--compat ") + to_string(requested) + " was given";
    return c;
  }
  const std::string feature = first_alexeyab_feature(cfg);
  if (feature.empty()) {
    c.compat = Compat::kPjreddie;
    c.reason = "auto: the cfg uses nothing AlexeyAB-only, so pjreddie Darknet semantics";
  } else {
    c.compat = Compat::kAlexeyAB;
    c.reason = "auto: " + feature + " is AlexeyAB Darknet only, so its semantics";
  }
  return c;
}

}  // namespace mdfi
