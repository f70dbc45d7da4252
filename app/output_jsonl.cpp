// --format jsonl: one complete JSON object per line and per image (failures included), so
// `mdfi ... | while read` and line-oriented tools work, and a killed run leaves valid lines.
#include <memory>

#include "output.h"
#include "output_json.h"

namespace mdfi::app {

namespace {

class JsonlWriter : public ResultWriter {
 public:
  explicit JsonlWriter(Task t) : task_(t) {}
  void write(std::FILE* out, const ImageResult& r) override {
    std::fprintf(out, "%s\n", dump_json_line(record_to_json(r, task_)).c_str());
  }

 private:
  Task task_;
};

}  // namespace

std::unique_ptr<ResultWriter> make_jsonl_writer(Task task) { return std::make_unique<JsonlWriter>(task); }

}  // namespace mdfi::app
