// --format json: one JSON array holding a record per image, written as the batch runs (one
// record per line inside the brackets) so a long batch streams.
#include "output_json.h"

#include <cmath>
#include <memory>

#include "output.h"

namespace mdfi::app {

// Six decimals is far below the model's own noise and keeps the numbers short.
static double rounded(double v, double scale = 1e6) { return std::round(v * scale) / scale; }

nlohmann::ordered_json record_to_json(const ImageResult& r, Task task) {
  nlohmann::ordered_json j;
  j["image"] = r.image;
  if (!r.shard.empty()) {
    j["path"] = r.key;
    j["shard"] = r.shard;
  }
  if (r.frame >= 0) {
    j["frame"] = r.frame;
    j["read_at"] = rounded(r.read_at, 1e3);
    if (r.skipped) j["skipped"] = r.skipped;
  }
  if (!r.warnings.empty()) j["warnings"] = r.warnings;
  if (!r.ok) {
    j["error"] = r.error;
    return j;
  }
  j["width"] = r.width;
  j["height"] = r.height;
  j["time_ms"] = rounded(r.time_ms, 1e3);
  if (task == Task::kDetect) {
    nlohmann::ordered_json dets = nlohmann::ordered_json::array();
    for (const DetectionRecord& d : r.detections) {
      nlohmann::ordered_json o;
      o["class_id"] = d.class_id;
      o["name"] = d.name;
      o["confidence"] = rounded(d.confidence);
      o["box"] = {{"x", d.left}, {"y", d.top}, {"w", d.width}, {"h", d.height}};
      o["relative"] = {{"cx", rounded(d.cx)}, {"cy", rounded(d.cy)}, {"w", rounded(d.w)}, {"h", rounded(d.h)}};
      dets.push_back(std::move(o));
    }
    j["detections"] = std::move(dets);
  } else {
    nlohmann::ordered_json cls = nlohmann::ordered_json::array();
    for (const ClassRecord& c : r.classes) {
      nlohmann::ordered_json o;
      o["rank"] = c.rank;
      o["class_id"] = c.class_id;
      o["name"] = c.name;
      o["probability"] = rounded(c.probability);
      cls.push_back(std::move(o));
    }
    j["classes"] = std::move(cls);
  }
  return j;
}

std::string dump_json_line(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

namespace {

class JsonWriter : public ResultWriter {
 public:
  explicit JsonWriter(Task t) : task_(t) {}
  void begin(std::FILE* out) override { std::fputs("[", out); }
  void write(std::FILE* out, const ImageResult& r) override {
    std::fprintf(out, "%s\n%s", first_ ? "" : ",", dump_json_line(record_to_json(r, task_)).c_str());
    first_ = false;
  }
  void end(std::FILE* out) override { std::fputs("\n]\n", out); }

 private:
  Task task_;
  bool first_ = true;
};

}  // namespace

std::unique_ptr<ResultWriter> make_json_writer(Task task) { return std::make_unique<JsonWriter>(task); }

}  // namespace mdfi::app
