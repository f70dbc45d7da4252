// `mdfi classify`: image classification over a batch; the top K classes of the last layer.
#include <algorithm>
#include <numeric>

#include "batch.h"
#include "commands.h"
#include "run_options.h"

namespace mdfi::app {

static void classes_of(const PreparedModel& pm, const RunArgs& args, const ImageRun& run, ImageResult& r) {
  const int last = int(pm.net.layers.size()) - 1;
  const size_t n = pm.net.layers[size_t(last)]->out.count();
  const float* p = run.out.output_of(pm.net, last);
  if (!p) return;
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  // Stable: equal scores keep the lower class first, as Darknet's top_k does.
  std::stable_sort(idx.begin(), idx.end(), [p](size_t a, size_t b) { return p[a] > p[b]; });
  const size_t k = std::min(n, size_t(std::max(args.top, 1)));
  for (size_t rank = 0; rank < k; ++rank) {
    const size_t c = idx[rank];
    ClassRecord rec;
    rec.rank = int(rank) + 1;
    rec.class_id = int(c);
    rec.name = c < pm.labels.size() ? pm.labels[c] : "class " + std::to_string(c);
    rec.probability = p[c];
    r.classes.push_back(std::move(rec));
  }
}

Action add_classify_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("classify", "classify images (top classes of the last layer)");
  add_run_options(*cmd, *args, Task::kClassify, "alexnet");
  return [args, cmd]() {
    args->mem_report_on = cmd->count("--mem-report") > 0;
    if (args->mem_report.empty() || args->mem_report == "true") args->mem_report = "-";  // the bare flag
    return run_batch(*args, Task::kClassify, "alexnet", classes_of);
  };
}

}  // namespace mdfi::app
