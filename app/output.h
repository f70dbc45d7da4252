// Result writers (one file per format: output_text.cpp, output_json.cpp, output_jsonl.cpp,
// output_csv.cpp) and the output sink they write to: stdout, or -o FILE written to an unnamed
// (O_TMPFILE) or temporary file in the same directory and renamed into place only when complete,
// so a failed or killed run never leaves a half-written results file under the requested name.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "results.h"
#include "status.h"

namespace mdfi::app {

enum class Format { kText, kJson, kJsonl, kCsv };

// "text", "json", "jsonl", "csv" (the --format names).
Result<Format> parse_format(const std::string& name);

class ResultWriter {
 public:
  virtual ~ResultWriter() = default;
  virtual void begin(std::FILE*) {}
  virtual void write(std::FILE* out, const ImageResult& r) = 0;
  virtual void end(std::FILE*) {}
};

std::unique_ptr<ResultWriter> make_text_writer(Task task);
std::unique_ptr<ResultWriter> make_json_writer(Task task);   // one JSON array
std::unique_ptr<ResultWriter> make_jsonl_writer(Task task);  // one JSON object per line
std::unique_ptr<ResultWriter> make_csv_writer(Task task);
std::unique_ptr<ResultWriter> make_writer(Format f, Task task);

class OutputSink {
 public:
  // path empty or "-": stdout.
  static Result<std::unique_ptr<OutputSink>> open(const std::string& path);
  ~OutputSink();
  std::FILE* file() { return f_; }
  // Flushes after each record when writing to a pipe or terminal, so consumers see results live.
  void record_done();
  // Makes the file appear under its final name; fails (and removes the temp file) on any write error.
  Status commit();
  // Drops a partial file (the run failed as a whole).
  void abandon();

 private:
  OutputSink() = default;
  std::FILE* f_ = nullptr;
  std::string path_, tmp_;
  bool is_stdout_ = true;
};

}  // namespace mdfi::app
