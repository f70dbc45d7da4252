#include "model_args.h"

#include "compat.h"
#include "named_nets.h"

namespace mdfi::app {

void add_model_options(CLI::App& cmd, ModelArgs& args, const char* default_net, bool with_weights) {
  cmd.add_option("--net,-n", args.net,
                 std::string("named network (") + named_net_list() + ")" +
                     (default_net ? std::string("; default ") + default_net : std::string()));
  cmd.add_option("--cfg,-c", args.cfg, "Darknet .cfg file (instead of --net)");
  if (with_weights) {
    cmd.add_option("--weights,-w", args.weights, "Darknet .weights file (default: $MDFI_WEIGHTS, then the weights directory)");
    cmd.add_option("--names,--labels", args.names, "label file, one name per line");
  }
  cmd.add_option("--compat", args.compat,
                 "Darknet semantics: pjreddie (letterbox, IoU NMS), alexeyab (resize unless letter_box=1, the cfg's "
                 "NMS, scale_x_y), auto (alexeyab when the cfg uses anything only AlexeyAB has)")
      ->capture_default_str()
      ->check(CLI::IsMember({"pjreddie", "alexeyab", "auto"}));
  cmd.add_option("--width", args.width, "override the network input width");
  cmd.add_option("--height", args.height, "override the network input height");
}

Result<ResolvedModel> resolve_model(const ModelArgs& args, const char* default_net, bool need_weights) {
  ResolvedModel m;
  if (!args.cfg.empty() && !args.net.empty())
    return Result<ResolvedModel>(ErrorKind::kUsage, "give either --net or --cfg, not both");
  if (!args.cfg.empty()) {
    m.name = args.cfg;
    m.cfg_path = args.cfg;
    m.weights_path = args.weights;
    if (need_weights && m.weights_path.empty())
      return Result<ResolvedModel>(ErrorKind::kUsage, "--cfg needs --weights FILE");
  } else {
    const std::string name = args.net.empty() ? (default_net ? default_net : "") : args.net;
    if (name.empty()) return Result<ResolvedModel>(ErrorKind::kUsage, "give --net NAME or --cfg FILE");
    const NamedNet* n = find_named_net(name);
    if (!n)
      return Result<ResolvedModel>(ErrorKind::kUsage, "unknown network '" + name + "' (known: " + named_net_list() + ")");
    m.name = n->name;
    m.cfg_path = cfg_path_for(*n);
    m.labels_path = labels_path_for(*n);
    if (need_weights) {
      auto w = find_weights(*n, args.weights);
      if (!w.ok()) return w.status();
      m.weights_path = *w;
    } else {
      m.weights_path = args.weights;
    }
  }
  if (!args.names.empty()) m.labels_path = args.names;
  return m;
}

Result<Network> build_model(const ResolvedModel& m, const ModelArgs& args) {
  BuildOptions opts;
  opts.width = args.width;
  opts.height = args.height;
  if (!parse_compat(args.compat, &opts.compat))
    return Result<Network>(ErrorKind::kUsage, "--compat must be pjreddie, alexeyab or auto (got '" + args.compat + "')");
  return load_network_cfg(m.cfg_path, opts);
}

}  // namespace mdfi::app
