// Result writers (one file per format: output_text.cpp, output_json.cpp, output_jsonl.cpp,
// output_csv.cpp) and the output sink they write to: stdout, or -o FILE. A JSON array is only
// valid whole, so it is written to an unnamed (O_TMPFILE) or temporary file in the same
// directory and renamed into place when complete: a failed or killed run leaves nothing under
// the requested name. Line formats (text, jsonl, csv) are written straight to FILE, each record
// flushed as it completes, so an interrupted batch keeps every finished record and --resume can
// append the rest.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "results.h"
#include "status.h"

namespace mdfi::app {

enum class Format { kText, kJson, kJsonl, kCsv, kDarknetJson };

// "text", "json", "jsonl", "csv", "darknet-json" (the --format names).
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
std::unique_ptr<ResultWriter> make_darknet_json_writer();
// Darknet's stdout layout for the Darknet command lines (darknet_cli.h).
std::unique_ptr<ResultWriter> make_darknet_text_writer(Task task, bool ext_output);  // AlexeyAB's -out layout (detect)
std::unique_ptr<ResultWriter> make_writer(Format f, Task task);

class OutputSink {
 public:
  enum class Mode {
    kAtomic,  // temp file renamed into place by commit() (JSON arrays)
    kLines,   // FILE itself, truncated, flushed after every record
    kAppend,  // FILE itself, appended to (--resume), flushed after every record
  };
  // Before the model is loaded: fails (kIo) when FILE's directory is missing or not writable,
  // or FILE exists and is not writable, without creating anything.
  static Status check_writable(const std::string& path);
  // path empty or "-": stdout (mode ignored).
  static Result<std::unique_ptr<OutputSink>> open(const std::string& path, Mode mode);
  ~OutputSink();
  std::FILE* file() { return f_; }
  bool is_stdout() const { return is_stdout_; }
  // Flushes after each record to a pipe, a terminal, or a line-format file, so consumers see
  // results live and an interrupted run keeps them.
  void record_done();
  // Atomic: makes the file appear under its final name; fails (and removes the temp file) on
  // any write error. Lines: flushes, fsyncs and closes.
  Status commit();
  // The run failed as a whole. Atomic: drops the partial file. Lines: keeps the finished
  // records; a file this run created and wrote no record to is removed (nothing half-done is
  // left under the name asked for).
  void abandon();

 private:
  OutputSink() = default;
  std::FILE* f_ = nullptr;
  std::string path_, tmp_;
  bool is_stdout_ = true;
  bool special_ = false;  // FILE exists and is not a regular file: written in place, not synced
  Mode mode_ = Mode::kAtomic;
  size_t records_ = 0;
};

}  // namespace mdfi::app
