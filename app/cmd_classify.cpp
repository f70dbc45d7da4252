// `mdfi classify`: image classification, top-k lines `NN.NN%: label` on stdout.
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "commands.h"
#include "exit_codes.h"
#include "run_common.h"

namespace mdfi::app {

void add_run_options(CLI::App& cmd, RunArgs& args, const char* default_net);

Action add_classify_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto top = std::make_shared<int>(5);
  CLI::App* cmd = app.add_subcommand("classify", "classify images");
  add_run_options(*cmd, *args, "alexnet");
  cmd->add_option("--top", *top, "how many classes to print")->capture_default_str()->check(CLI::Range(1, 100000));
  return [args, top, cmd]() {
    args->mem_report_on = cmd->count("--mem-report") > 0;
    auto pm = prepare_model(*args, "alexnet");
    if (!pm.ok()) return report(pm.status());
    const int last = int(pm->net.layers.size()) - 1;
    const size_t n = pm->net.layers[size_t(last)]->out.count();
    int failed = 0;
    for (size_t i = 0; i < args->images.size(); ++i) {
      const std::string& path = args->images[i];
      MemoryTracker mem;
      auto run = run_image(*pm, *args, path, mem, i);
      if (!run.ok()) {
        if (run.status().kind() != ErrorKind::kImage) return report(run.status());
        report(run.status());
        ++failed;
        continue;
      }
      const float* p = run->out.output_of(pm->net, last);
      std::vector<size_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0);
      const size_t k = std::min(n, size_t(*top));
      // Stable: equal scores keep the lower class first, as Darknet's top_k does.
      std::stable_sort(idx.begin(), idx.end(), [p](size_t a, size_t b) { return p[a] > p[b]; });
      std::printf("%s:\n", path.c_str());
      for (size_t r = 0; r < k; ++r) {
        const size_t c = idx[r];
        const std::string name = c < pm->labels.size() ? pm->labels[c] : "class " + std::to_string(c);
        std::printf("%5.2f%%: %s\n", p[c] * 100, name.c_str());
      }
      std::fflush(stdout);
      if (!verbosity().quiet) std::fprintf(stderr, "mdfi: %s: predicted in %.1f ms\n", path.c_str(), run->ms);
      if (args->mem_report_on) {
        if (args->mem_report == "-" || args->mem_report.empty()) {
          print_mem_report(stderr, *pm, *run, mem);
        } else {
          Status st = write_mem_report_json(args->mem_report, *pm, *run, mem);
          if (!st.ok()) return report(st);
        }
      }
    }
    return failed ? int(kExitSomeInputs) : int(kExitOk);
  };
}

}  // namespace mdfi::app
