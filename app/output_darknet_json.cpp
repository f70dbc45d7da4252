// --format darknet-json: AlexeyAB's `detector test -out FILE` layout, so tools written for it
// read mdfi's results unchanged: one array, per image {"frame_id", "filename", "objects": [
// {"class_id", "name", "relative_coordinates": {"center_x", "center_y", "width", "height"},
// "confidence"}]}, frame_id counting from 1, coordinates relative to the image and not clipped
// (as Darknet's bbox). A failed image, which Darknet cannot report, gets empty objects and an
// "error" field. Like --format json it is all-or-nothing with -o.
#include <cmath>
#include <memory>

#include "output.h"
#include "output_json.h"

namespace mdfi::app {

namespace {

double rounded(double v) { return std::round(v * 1e6) / 1e6; }  // Darknet prints %f: six decimals

class DarknetJsonWriter : public ResultWriter {
 public:
  void begin(std::FILE* out) override { std::fputs("[", out); }
  void write(std::FILE* out, const ImageResult& r) override {
    nlohmann::ordered_json j;
    j["frame_id"] = ++frame_;
    j["filename"] = r.image;
    nlohmann::ordered_json objs = nlohmann::ordered_json::array();
    for (const DetectionRecord& d : r.detections) {
      nlohmann::ordered_json o;
      o["class_id"] = d.class_id;
      o["name"] = d.name;
      o["relative_coordinates"] = {{"center_x", rounded(d.cx)},
                                   {"center_y", rounded(d.cy)},
                                   {"width", rounded(d.w)},
                                   {"height", rounded(d.h)}};
      o["confidence"] = rounded(d.confidence);
      objs.push_back(std::move(o));
    }
    j["objects"] = std::move(objs);
    if (!r.ok) j["error"] = r.error;
    std::fprintf(out, "%s\n%s", frame_ > 1 ? "," : "", dump_json_line(j).c_str());
  }
  void end(std::FILE* out) override { std::fputs("\n]\n", out); }

 private:
  long long frame_ = 0;
};

}  // namespace

std::unique_ptr<ResultWriter> make_darknet_json_writer() { return std::make_unique<DarknetJsonWriter>(); }

}  // namespace mdfi::app
