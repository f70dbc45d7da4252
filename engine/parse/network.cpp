#include "network.h"

#include <algorithm>

#include "compat.h"
#include "layer_registry.h"
#include "conv_choice.h"

namespace mdfi {

// [net] is read here (read_net_section), so it is declared here; it has no factory.
const LayerRegistration& net_registration() {
  static const LayerRegistration net = [] {
    LayerRegistration r;
    r.section = "net";
    r.aliases = {"network"};
    r.keys = "width, height, channels, letter_box (AlexeyAB)";
    r.doc = "input size; batch is always 1; training keys are accepted and ignored";
    r.alexeyab_keys = {"letter_box", "mosaic", "mixup", "cutmix", "blur", "gaussian_noise", "ema_alpha",
                       "use_cuda_graph", "dynamic_minibatch", "optimized_memory"};
    r.ignored = {"batch", "subdivisions", "learning_rate", "momentum", "decay", "burn_in", "max_batches",
                 "policy", "steps", "scales", "angle", "saturation", "exposure", "hue", "max_crop",
                 "min_crop", "aspect", "power", "gamma", "step", "rate", "random", "time_steps", "notruth",
                 "adam", "B1", "B2", "eps", "max_chart_loss", "mosaic", "mixup", "cutmix", "blur", "flip",
                 "track", "augment_speed", "sequential_subdivisions", "try_fix_nan", "label_smooth_eps",
                 "optimized_memory", "workspace_size_limit_MB", "adversarial_lr", "attention",
                 "dynamic_minibatch", "gaussian_noise", "center", "inputs", "max_batches", "loss_scale",
                 "contrastive", "unsupervised", "use_cuda_graph", "ema_alpha", "num_boxes", "trained"};
    return r;
  }();
  return net;
}

namespace {

Status read_net_section(const CfgFile& cfg, const BuildOptions& opts, NetParams* net) {
  const SectionReader r(cfg, cfg.sections.front());
  MDFI_ASSIGN_OR_RETURN(auto w, r.get_int("width", 0));
  MDFI_ASSIGN_OR_RETURN(auto h, r.get_int("height", 0));
  MDFI_ASSIGN_OR_RETURN(auto c, r.get_int("channels", 0));
  // Training-only [net] keys: known, deliberately ignored (mdfi always runs batch 1).
  for (const char* k : net_registration().ignored) r.ignore({k});
  net->w = opts.width > 0 ? opts.width : w;
  net->h = opts.height > 0 ? opts.height : h;
  net->c = c;
  const CompatChoice choice = resolve_compat(cfg, opts.compat);
  net->compat = choice.compat;
  net->compat_reason = choice.reason;
  // AlexeyAB; pjreddie always letterboxes.
  MDFI_ASSIGN_OR_RETURN(const int letter_box, r.get_int("letter_box", 0));
  net->letterbox = net->compat == Compat::kPjreddie || letter_box != 0;
  // Darknet's text models (rnn, gru, lstm) give a vector size in [net] inputs= instead of an image.
  if ((w <= 0 || h <= 0 || c <= 0) && r.has("inputs"))
    return Status(ErrorKind::kUnsupported, r.where("inputs") +
                                               ": [net] inputs= without width/height: recurrent text models are not "
                                               "supported (mdfi runs image models)");
  if (net->w <= 0 || net->h <= 0 || net->c <= 0)
    return Status(ErrorKind::kCfg, r.where() + ": [net] needs positive width, height and channels (got " +
                                       std::to_string(net->w) + "x" + std::to_string(net->h) + "x" +
                                       std::to_string(net->c) + ")");
  if (net->w > 16384 || net->h > 16384 || net->c > 4096)
    return Status(ErrorKind::kCfg, r.where() + ": [net] input " + std::to_string(net->w) + "x" +
                                       std::to_string(net->h) + "x" + std::to_string(net->c) +
                                       " is absurdly large (limit 16384x16384x4096)");
  // Each axis may be in range while their product is not: refuse before anything is allocated.
  if (size_t(net->w) * size_t(net->h) * size_t(net->c) > kMaxTensorFloats)
    return Status(ErrorKind::kCfg, r.where() + ": [net] input " + std::to_string(net->w) + "x" +
                                       std::to_string(net->h) + "x" + std::to_string(net->c) + " has more than " +
                                       std::to_string(kMaxTensorFloats) + " values, refused");
  return Status::Ok();
}

}  // namespace

size_t Network::param_floats() const {
  size_t n = 0;
  for (const auto& l : layers) n += l->param_floats();
  return n;
}

double Network::flops() const {
  double f = 0;
  for (const auto& l : layers) f += l->flops();
  return f;
}

std::vector<std::string> supported_layer_types() {
  std::vector<std::string> v;
  for (const LayerRegistration& r : registered_layers()) v.push_back(r.section);
  std::sort(v.begin(), v.end());
  return v;
}

Result<Network> build_network(const CfgFile& cfg, const BuildOptions& opts) {
  Network netw;
  netw.cfg_path = cfg.path;
  MDFI_RETURN_IF_ERROR(read_net_section(cfg, opts, &netw.net));
  Shape input{netw.net.c, netw.net.h, netw.net.w};
  for (size_t s = 1; s < cfg.sections.size(); ++s) {
    const CfgSection& sec = cfg.sections[s];
    const int index = int(s) - 1;
    const std::string where = cfg.path + ":" + std::to_string(sec.line);
    if (sec.name == "net")
      return Result<Network>(ErrorKind::kCfg, where + ": a second [net] section (layer " + std::to_string(index) + ")");
    const LayerRegistration* reg = find_registration(sec.name);
    if (!reg || !reg->create) {
      std::string list;
      for (const auto& n : supported_layer_types()) list += (list.empty() ? "" : " ") + n;
      return Result<Network>(ErrorKind::kUnsupported, where + ": layer " + std::to_string(index) + " [" +
                                                          sec.raw_name + "] is not supported (supported: " + list + ")");
    }
    BuildContext ctx{netw.net, netw.layers, index, input, where};
    SectionReader reader(cfg, sec);
    for (const char* k : reg->ignored) reader.ignore({k});
    MDFI_ASSIGN_OR_RETURN(std::unique_ptr<Layer> layer, reg->create(reader, ctx));
    layer->index = index;
    layer->cfg_line = sec.line;
    if (layer->sources.empty()) {
      layer->sources = {index - 1};
      layer->source_shapes = {input};
    }
    if (layer->out.count() == 0 || layer->out.c <= 0 || layer->out.h <= 0 || layer->out.w <= 0)
      return Result<Network>(ErrorKind::kCfg, where + ": layer " + std::to_string(index) + " [" + sec.raw_name +
                                                  "] has an empty output");
    if (layer->out.count() > kMaxTensorFloats)
      return Result<Network>(ErrorKind::kCfg, where + ": layer " + std::to_string(index) + " [" + sec.raw_name +
                                                  "] output of " + std::to_string(layer->out.count()) +
                                                  " values is absurdly large, refused");
    input = layer->out;
    netw.layers.push_back(std::move(layer));
  }
  if (netw.layers.empty()) return Result<Network>(ErrorKind::kCfg, cfg.path + ": the cfg has no layers after [net]");
  // YOLOv1's [detection] boxes are relative to a plainly resized input (Darknet's `yolo test`).
  for (const auto& l : netw.layers)
    if (std::string(l->kind()) == "detection") netw.net.letterbox = false;
  netw.warnings = unused_key_warnings(cfg);
  ConvChoice choice;
  if (!parse_winograd_mode(opts.winograd, &choice.mode))
    return Result<Network>(ErrorKind::kUsage, "--winograd must be off, auto, f2 or f4 (got '" + opts.winograd + "')");
  choose_conv_algorithms(netw, choice);
  return netw;
}

Result<Network> load_network_cfg(const std::string& path, const BuildOptions& opts) {
  MDFI_ASSIGN_OR_RETURN(auto cfg, parse_cfg_file(path));
  return build_network(cfg, opts);
}

}  // namespace mdfi
