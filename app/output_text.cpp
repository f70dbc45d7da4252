// --format text: Darknet-like lines. Scripts written for Darknet keep working: a "PATH:" line,
// then "name: NN%" per detection with its box, or "NN.NN%: name" per class. A failed image is
// one "PATH: error: why" line in an -o file (on stdout only the stderr line says it).
#include <memory>

#include "output.h"

namespace mdfi::app {

namespace {

class TextWriter : public ResultWriter {
 public:
  explicit TextWriter(Task t) : task_(t) {}
  void write(std::FILE* out, const ImageResult& r) override {
    if (!r.ok) {
      // The "mdfi: error: PATH: why" line on stderr already says it: on the terminal (stdout)
      // it would be printed twice, and results belong on stdout. In an -o file it stays, as the
      // record --resume reads.
      if (out != stdout) std::fprintf(out, "%s: error: %s\n", r.image.c_str(), r.error.c_str());
      return;
    }
    std::fprintf(out, "%s:\n", r.image.c_str());
    if (task_ == Task::kDetect) {
      for (const DetectionRecord& d : r.detections)
        std::fprintf(out, "%s: %.0f%%\t(left: %d top: %d width: %d height: %d)\n", d.name.c_str(),
                     double(d.confidence) * 100, d.left, d.top, d.width, d.height);
    } else {
      for (const ClassRecord& c : r.classes)
        std::fprintf(out, "%5.2f%%: %s\n", double(c.probability) * 100, c.name.c_str());
    }
  }

 private:
  Task task_;
};

}  // namespace

std::unique_ptr<ResultWriter> make_text_writer(Task task) { return std::make_unique<TextWriter>(task); }

}  // namespace mdfi::app
