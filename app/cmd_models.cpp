// `mdfi models`: the named networks (--net NAME) with what a user needs to pick one for a
// small board: task, input size, GFLOP per image, the planned peak memory (make_plan, no weights
// read), whether the weights were found and where, and the official file with its SHA-256.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "exit_codes.h"
#include "model_args.h"
#include "named_nets.h"
#include "plan.h"

namespace mdfi::app {

namespace {

struct NetFacts {
  bool ok = false;
  std::string error;
  int w = 0, h = 0, c = 0;
  double gflop = 0;
  size_t peak = 0;
  size_t params = 0;    // floats in the weights file
  std::string cfg;      // where the cfg came from: a path, or "built-in cfg/NAME.cfg"
  std::string weights;  // found path, "" when not found
};

NetFacts facts_for(const NamedNet& n) {
  NetFacts f;
  ModelArgs args;
  args.net = n.name;
  auto m = resolve_model(args, nullptr, false);
  auto net = m.ok() ? build_model(*m, args) : Result<Network>(m.status());
  if (!net.ok()) {
    f.error = net.status().message();
  } else {
    f.ok = true;
    f.cfg = m->cfg_path;
    f.w = net->net.w;
    f.h = net->net.h;
    f.c = net->net.c;
    f.gflop = net->flops() / 1e9;
    f.peak = make_plan(*net).peak_bytes;
    f.params = net->param_floats();
  }
  auto w = find_weights(n, "");
  if (w.ok()) f.weights = *w;
  return f;
}

}  // namespace

Action add_models_command(CLI::App& app) {
  auto porcelain = std::make_shared<bool>(false);
  auto names_only = std::make_shared<bool>(false);
  auto task = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("models", "list the named networks (--net NAME), their cost and their weights");
  cmd->add_flag("--porcelain", *porcelain,
                "tab-separated lines for scripts: name task input gflop peak_bytes file url sha256 weights_path "
                "params (floats in the weights file)");
  cmd->add_flag("--names", *names_only, "only the names, one per line (shell completion)");
  cmd->add_option("--task", *task, "only the networks of one task")->check(CLI::IsMember({"detect", "classify"}));
  return [porcelain, names_only, task]() {
    std::vector<const NamedNet*> nets;
    for (const NamedNet& n : named_nets())
      if (task->empty() || *task == n.task) nets.push_back(&n);
    if (*names_only) {
      for (const NamedNet* n : nets) std::printf("%s\n", n->name);
      return int(kExitOk);
    }
    int rc = kExitOk;
    int wname = 4;
    for (const NamedNet* n : nets) wname = std::max(wname, int(std::strlen(n->name)));
    if (!*porcelain)
      std::printf("%-*s %-8s %-11s %8s %11s  %s\n", wname, "name", "task", "input", "GFLOP", "peak mem", "weights");
    for (const NamedNet* np : nets) {
      const NamedNet& n = *np;
      const NetFacts f = facts_for(n);
      if (!f.ok) {
        std::fprintf(stderr, "mdfi: error: %s\n", f.error.c_str());
        rc = kExitFailed;
      }
      const std::string input = f.ok ? std::to_string(f.w) + "x" + std::to_string(f.h) + "x" + std::to_string(f.c) : "?";
      const std::string sha = *n.sha256 ? n.sha256 : "unknown";
      if (*porcelain) {
        std::printf("%s\t%s\t%s\t%.3f\t%zu\t%s\t%s\t%s\t%s\t%zu\n", n.name, n.task, input.c_str(), f.gflop, f.peak,
                    n.weights, n.url, sha.c_str(), f.weights.c_str(), f.params);
        continue;
      }
      std::printf("%-*s %-8s %-11s %8.2f %11s  %s\n", wname, n.name, n.task, input.c_str(), f.gflop,
                  f.ok ? format_bytes(f.peak).c_str() : "?", f.weights.empty() ? "missing" : f.weights.c_str());
      std::printf("%-*s official %s  sha256 %s\n", wname, "", n.weights, sha.c_str());
      if (f.ok) std::printf("%-*s cfg %s\n", wname, "", f.cfg.c_str());
    }
    if (!*porcelain) {
      // The places in find_weights' order, as directories (those of the first network).
      std::string dirs;
      for (const std::string& p : weights_places(named_nets().front())) dirs += ", " + p.substr(0, p.rfind('/'));
      std::printf("\npeak mem: planned network heap (activations + one layer's weights + workspace), before image "
                  "buffers.\nweights (the official file) are looked for in $MDFI_WEIGHTS, then in%s; fetch with "
                  "%s NAME\n",
                  dirs.c_str() + 1, get_weights_script().c_str());
    }
    return rc;
  };
}

}  // namespace mdfi::app
