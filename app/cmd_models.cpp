// `mdfi models`: the named networks (--net NAME) with what a user needs to pick one for a
// small board: input size, GFLOP per image, the planned peak memory (make_plan, no weights
// read), whether the weights were found and where, and the official file with its SHA-256.
#include <cstdio>

#include "commands.h"
#include "exit_codes.h"
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
  std::string weights;  // found path, "" when not found
};

NetFacts facts_for(const NamedNet& n) {
  NetFacts f;
  auto net = load_network_cfg(cfg_path_for(n), BuildOptions{});
  if (!net.ok()) {
    f.error = net.status().message();
  } else {
    f.ok = true;
    f.w = net->net.w;
    f.h = net->net.h;
    f.c = net->net.c;
    f.gflop = net->flops() / 1e9;
    f.peak = make_plan(*net).peak_bytes;
  }
  auto w = find_weights(n, "");
  if (w.ok()) f.weights = *w;
  return f;
}

}  // namespace

Action add_models_command(CLI::App& app) {
  auto porcelain = std::make_shared<bool>(false);
  auto names_only = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("models", "list the named networks (--net NAME), their cost and their weights");
  cmd->add_flag("--porcelain", *porcelain,
                "tab-separated lines for scripts: name task input gflop peak_bytes file url sha256 weights_path");
  cmd->add_flag("--names", *names_only, "only the names, one per line (shell completion)");
  return [porcelain, names_only]() {
    if (*names_only) {
      for (const NamedNet& n : named_nets()) std::printf("%s\n", n.name);
      return int(kExitOk);
    }
    int rc = kExitOk;
    if (!*porcelain)
      std::printf("%-12s %-8s %-11s %8s %11s  %s\n", "name", "task", "input", "GFLOP", "peak mem", "weights");
    for (const NamedNet& n : named_nets()) {
      const NetFacts f = facts_for(n);
      if (!f.ok) {
        std::fprintf(stderr, "mdfi: error: %s\n", f.error.c_str());
        rc = kExitFailed;
      }
      const std::string input = f.ok ? std::to_string(f.w) + "x" + std::to_string(f.h) + "x" + std::to_string(f.c) : "?";
      const std::string sha = *n.sha256 ? n.sha256 : "unknown";
      if (*porcelain) {
        std::printf("%s\t%s\t%s\t%.3f\t%zu\t%s\t%s\t%s\t%s\n", n.name, n.task, input.c_str(), f.gflop, f.peak, n.weights,
                    n.url, sha.c_str(), f.weights.c_str());
        continue;
      }
      std::printf("%-12s %-8s %-11s %8.2f %11s  %s\n", n.name, n.task, input.c_str(), f.gflop,
                  f.ok ? format_bytes(f.peak).c_str() : "?", f.weights.empty() ? "missing" : f.weights.c_str());
      std::printf("%-12s official %s  sha256 %s\n", "", n.weights, sha.c_str());
    }
    if (!*porcelain)
      std::printf("\npeak mem: planned network heap (activations + one layer's weights + workspace), before image "
                  "buffers.\nweights are looked for in $MDFI_WEIGHTS, then %s; fetch with scripts/get-weights.sh NAME\n",
                  weights_dir().c_str());
    return rc;
  };
}

}  // namespace mdfi::app
