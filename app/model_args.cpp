#include "model_args.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <utility>

#include "compat.h"
#include "data_file.h"
#include "named_nets.h"
#include "usage_errors.h"

namespace mdfi::app {

void add_model_options(CLI::App& cmd, ModelArgs& args, const char* default_net, bool with_weights) {
  cmd.add_option("--net,-n", args.net,
                 std::string("named network (") + named_net_list(args.task) + ")" +
                     (default_net ? std::string("; default ") + default_net : std::string()));
  cmd.add_option("--cfg,-c", args.cfg, "Darknet .cfg file (instead of --net)");
  if (with_weights) {
    cmd.add_option("--weights,-w", args.weights, "Darknet .weights file (default with --net: $MDFI_WEIGHTS, else the official file in the working directory, beside the mdfi binary, or in $MDFI_WEIGHTS_DIR, by default ~/.local/share/mdfi/weights)");
    cmd.add_option("--names,--labels", args.names,
                   "label file, one name per line (default with --cfg: CFG_STEM.names beside the cfg, or the only "
                   ".names file there)");
    cmd.add_option("--data", args.data, "Darknet .data file: labels from its names= line");
  }
  cmd.add_option("--compat", args.compat,
                 "Darknet semantics: pjreddie (letterbox, IoU NMS), alexeyab (resize unless letter_box=1, the cfg's "
                 "NMS, scale_x_y), auto (alexeyab when the cfg uses anything only AlexeyAB has)")
      ->capture_default_str()
      ->check(CLI::IsMember({"pjreddie", "alexeyab", "auto"}));
  cmd.add_option("--winograd", args.winograd,
                 "3x3 stride-1 convolutions by Winograd where the planner finds it costs no peak memory: auto "
                 "(F(4x4,3x3) on maps of 26x26 and more, F(2x2,3x3) below, except where this CPU's kernel needs "
                 "fewer products by F(4x4): ARM, AVX2), f2 (F(2x2) only), f4 (F(4x4) wherever it fits), off "
                 "(GEMM only)")
      ->capture_default_str()
      ->check(CLI::IsMember({"off", "auto", "f2", "f4"}));
  cmd.add_option("--width", args.width, "override the network input width");
  cmd.add_option("--height", args.height, "override the network input height");
}

namespace {

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Labels for --cfg without --names/--data: CFG_STEM.names beside the cfg, else the one .names
// file in that directory (model zoos ship coco.names next to the cfg). Several candidates and
// none matching the stem: no labels rather than a guess.
std::string names_beside(const std::string& cfg) {
  const size_t slash = cfg.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : cfg.substr(0, slash);
  const std::string base = cfg.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::string stem = base.substr(0, base.rfind('.'));
  const std::string same = (slash == std::string::npos ? "" : dir + "/") + stem + ".names";
  if (is_file(same)) return same;
  std::vector<std::string> found;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (ends_with(name, ".names") && is_file(dir + "/" + name)) found.push_back(name);
    }
    ::closedir(d);
  }
  if (found.size() != 1) return "";
  return (slash == std::string::npos ? "" : dir + "/") + found[0];
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

Result<ResolvedModel> resolve_model(const ModelArgs& args, const char* default_net, bool need_weights) {
  ResolvedModel m;
  if (!args.cfg.empty() && !args.net.empty())
    return Result<ResolvedModel>(ErrorKind::kUsage, "give either --net or --cfg, not both");
  if (!args.names.empty() && !args.data.empty())
    return Result<ResolvedModel>(ErrorKind::kUsage, "give either --names or --data, not both");
  if (!args.cfg.empty()) {
    m.name = args.cfg;
    m.cfg_path = args.cfg;
    m.weights_path = args.weights;
    if (need_weights && m.weights_path.empty())
      return Result<ResolvedModel>(ErrorKind::kUsage, "--cfg needs --weights FILE");
    if (args.names.empty() && args.data.empty()) {
      m.labels_path = names_beside(args.cfg);
      if (!m.labels_path.empty()) m.labels_origin = "beside the cfg";
    }
  } else {
    const std::string name = args.net.empty() ? (default_net ? default_net : "") : args.net;
    if (name.empty()) return Result<ResolvedModel>(ErrorKind::kUsage, "give --net NAME or --cfg FILE");
    const NamedNet* n = find_named_net(name);
    if (!n) {
      std::vector<std::string> names;
      for (const NamedNet& k : named_nets()) names.push_back(k.name);
      const std::string dym = did_you_mean(name, names);
      return Result<ResolvedModel>(ErrorKind::kUsage, "unknown network '" + name + "'" +
                                                          (dym.empty() ? "" : " (did you mean '" + dym + "'?)") +
                                                          "; known: " + named_net_list(args.task));
    }
    if (args.task && std::string(args.task) != n->task)
      return Result<ResolvedModel>(ErrorKind::kUsage, std::string("'") + n->name + "' is a " +
                                                          (std::string(n->task) == "detect" ? "detection" : "classification") +
                                                          " network: run it with 'mdfi " + n->task + " --net " + n->name +
                                                          " ...'");
    m.name = n->name;
    const DataRef cfg = cfg_for(*n);
    if (!cfg.found())  // only for a name added to the table without its cfg in cfg/
      return Result<ResolvedModel>(ErrorKind::kIo, cfg_rel(*n) + ": not found (this binary has no built-in copy); looked in " +
                                                       joined(data_dirs()) +
                                                       "; set MDFI_DATA_DIR to the directory holding cfg/ and data/");
    m.cfg_path = cfg.label(cfg_rel(*n));
    m.cfg_embedded = cfg.embedded;
    if (*n->labels) {
      const DataRef labels = labels_for(*n);
      if (labels.found()) {
        m.labels_path = labels.label(labels_rel(*n));
        m.labels_embedded = labels.embedded;
        m.labels_origin = "of the named network";
      }
    }
    if (need_weights) {
      MDFI_ASSIGN_OR_RETURN(auto w, find_weights(*n, args.weights));
      m.weights_path = w;
    } else {
      m.weights_path = args.weights;
    }
  }
  if (!args.names.empty()) {
    // A .data file read as a names list gave "valid  = coco_testdev" as a class name.
    if (looks_like_data_file(args.names))
      return Result<ResolvedModel>(ErrorKind::kUsage, args.names + ": a Darknet .data file, not a names list (one class "
                                                                   "name per line); pass it as --data " + args.names);
    m.labels_path = args.names;
    m.labels_embedded = {};
    m.labels_origin = "--names";
  } else if (!args.data.empty()) {
    MDFI_ASSIGN_OR_RETURN(auto data, parse_data_file(args.data));
    MDFI_ASSIGN_OR_RETURN(auto names, resolve_names_path(data));
    if (looks_like_data_file(names))
      return Result<ResolvedModel>(ErrorKind::kUsage, names + " (names= of " + args.data +
                                                          "): a Darknet .data file, not a names list");
    m.labels_path = names;
    m.labels_embedded = {};
    m.labels_origin = "names= of " + args.data;
    m.data_classes = data.classes();
  }
  return m;
}

Result<Network> build_model(const ResolvedModel& m, const ModelArgs& args) {
  BuildOptions opts;
  opts.width = args.width;
  opts.height = args.height;
  opts.winograd = args.winograd;
  if (!parse_compat(args.compat, &opts.compat))
    return Result<Network>(ErrorKind::kUsage, "--compat must be pjreddie, alexeyab or auto (got '" + args.compat + "')");
  auto load = [&m](const BuildOptions& o) -> Result<Network> {
    if (m.cfg_embedded.data() != nullptr) {
      MDFI_ASSIGN_OR_RETURN(auto cfg, parse_cfg_text(std::string(m.cfg_embedded), m.cfg_path));
      return build_network(cfg, o);
    }
    return load_network_cfg(m.cfg_path, o);
  };
  auto net = load(opts);
  if (net.ok() || (args.width <= 0 && args.height <= 0)) return net;
  // A size the network cannot take usually fails deep inside (a route joining maps of
  // different sizes); say what the size must be instead.
  opts.width = opts.height = 0;
  auto plain = load(opts);
  if (!plain.ok()) return net;
  int stride = 1;
  for (const auto& l : plain->layers)
    if (l->out.w > 1 && plain->net.w % l->out.w == 0) stride = std::max(stride, plain->net.w / l->out.w);
  for (const auto& [flag, v] : {std::pair<const char*, int>{"--width", args.width}, {"--height", args.height}}) {
    if (v > 0 && v % stride != 0) {
      const int lo = v / stride * stride, hi = lo + stride;
      return Result<Network>(ErrorKind::kUsage, std::string(flag) + " " + std::to_string(v) +
                                                    ": must be a multiple of " + std::to_string(stride) +
                                                    ", this network's stride (e.g. " +
                                                    (lo > 0 ? std::to_string(lo) + " or " : std::string()) +
                                                    std::to_string(hi) + ")");
    }
  }
  return net;
}

}  // namespace mdfi::app
