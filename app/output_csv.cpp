// --format csv: RFC 4180 (quoted fields, doubled quotes, CRLF-free), one row per detection or
// class; an image without detections is one row with empty detection fields, a failed image one
// row with the error column set, so every input appears at least once.
#include <memory>
#include <string>

#include "output.h"

namespace mdfi::app {

namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

class CsvWriter : public ResultWriter {
 public:
  explicit CsvWriter(Task t) : task_(t) {}
  void begin(std::FILE* out) override {
    if (task_ == Task::kDetect)
      std::fputs("image,width,height,time_ms,class_id,name,confidence,left,top,box_width,box_height,"
                 "rel_cx,rel_cy,rel_w,rel_h,error\n", out);
    else
      std::fputs("image,width,height,time_ms,rank,class_id,name,probability,error\n", out);
  }
  void write(std::FILE* out, const ImageResult& r) override {
    const std::string img = field(r.image);
    if (!r.ok) {
      std::fprintf(out, "%s,,,,,,,,%s%s\n", img.c_str(), task_ == Task::kDetect ? ",,,,,,," : "",
                   field(r.error).c_str());
      return;
    }
    char head[96];
    std::snprintf(head, sizeof head, "%d,%d,%.3f", r.width, r.height, r.time_ms);
    if (task_ == Task::kDetect) {
      if (r.detections.empty()) std::fprintf(out, "%s,%s,,,,,,,,,,,,\n", img.c_str(), head);
      for (const DetectionRecord& d : r.detections)
        std::fprintf(out, "%s,%s,%d,%s,%.6f,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,\n", img.c_str(), head, d.class_id,
                     field(d.name).c_str(), double(d.confidence), d.left, d.top, d.width, d.height, double(d.cx),
                     double(d.cy), double(d.w), double(d.h));
    } else {
      if (r.classes.empty()) std::fprintf(out, "%s,%s,,,,,\n", img.c_str(), head);
      for (const ClassRecord& c : r.classes)
        std::fprintf(out, "%s,%s,%d,%d,%s,%.6f,\n", img.c_str(), head, c.rank, c.class_id, field(c.name).c_str(),
                     double(c.probability));
    }
  }

 private:
  Task task_;
};

}  // namespace

std::unique_ptr<ResultWriter> make_csv_writer(Task task) { return std::make_unique<CsvWriter>(task); }

}  // namespace mdfi::app
