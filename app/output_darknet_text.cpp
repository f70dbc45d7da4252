// Darknet's own text layout, for the Darknet command lines (darknet_cli.h): per image
// "PATH: Predicted in N milli-seconds." (AlexeyAB's wording; the time is mdfi's whole pipeline),
// then per box "name: NN%" ordered by the left edge as AlexeyAB's draw_detections_v3() prints
// them, with -ext_output "\t(left_x: %4.0f   top_y: %4.0f   width: %4.0f   height: %4.0f)" from
// the unclipped relative box; per class "NN.NN%: name" (pjreddie's predict_classifier). A failed
// image prints nothing here: its error is on stderr, as Darknet's "Cannot load image" is.
#include <algorithm>
#include <cmath>
#include <memory>

#include "output.h"

namespace mdfi::app {

namespace {

class DarknetTextWriter : public ResultWriter {
 public:
  DarknetTextWriter(Task t, bool ext) : task_(t), ext_(ext) {}
  void write(std::FILE* out, const ImageResult& r) override {
    if (!r.ok) return;
    std::fprintf(out, "%s: Predicted in %lf milli-seconds.\n", r.image.c_str(), r.time_ms);
    if (task_ != Task::kDetect) {
      for (const ClassRecord& c : r.classes) std::fprintf(out, "%5.2f%%: %s\n", double(c.probability) * 100, c.name.c_str());
      return;
    }
    std::vector<const DetectionRecord*> order;
    for (const DetectionRecord& d : r.detections) order.push_back(&d);
    auto left = [](const DetectionRecord* d) { return d->cx - d->w / 2; };
    std::stable_sort(order.begin(), order.end(), [&](auto* a, auto* b) { return left(a) < left(b); });
    for (const DetectionRecord* d : order) {
      std::fprintf(out, "%s: %.0f%%", d->name.c_str(), double(d->confidence) * 100);
      if (ext_)
        std::fprintf(out, "\t(left_x: %4.0f   top_y: %4.0f   width: %4.0f   height: %4.0f)\n",
                     std::round(double((d->cx - d->w / 2) * float(r.width))),
                     std::round(double((d->cy - d->h / 2) * float(r.height))), std::round(double(d->w * float(r.width))),
                     std::round(double(d->h * float(r.height))));
      else
        std::fputc('\n', out);
    }
  }

 private:
  Task task_;
  bool ext_;
};

}  // namespace

std::unique_ptr<ResultWriter> make_darknet_text_writer(Task task, bool ext_output) {
  return std::make_unique<DarknetTextWriter>(task, ext_output);
}

}  // namespace mdfi::app
