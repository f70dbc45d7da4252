// The output sink and the format table; the writers live in output_<format>.cpp.
#include "output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mdfi::app {

Result<Format> parse_format(const std::string& name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  if (name == "jsonl") return Format::kJsonl;
  if (name == "csv") return Format::kCsv;
  return Result<Format>(ErrorKind::kUsage, "unknown format '" + name + "' (text, json, jsonl, csv)");
}

std::unique_ptr<ResultWriter> make_writer(Format f, Task task) {
  switch (f) {
    case Format::kJson: return make_json_writer(task);
    case Format::kJsonl: return make_jsonl_writer(task);
    case Format::kCsv: return make_csv_writer(task);
    case Format::kText: break;
  }
  return make_text_writer(task);
}

Result<std::unique_ptr<OutputSink>> OutputSink::open(const std::string& path) {
  std::unique_ptr<OutputSink> s(new OutputSink());
  if (path.empty() || path == "-") {
    s->f_ = stdout;
    return s;
  }
  s->is_stdout_ = false;
  s->path_ = path;
  // Same directory as the target, so the final rename cannot cross file systems.
  s->tmp_ = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(s->tmp_.data());
  if (fd < 0)
    return Result<std::unique_ptr<OutputSink>>(ErrorKind::kIo,
                                                path + ": cannot create the output file (" + std::strerror(errno) + ")");
  ::fchmod(fd, 0644);  // mkstemp makes 0600; results are ordinary files
  s->f_ = ::fdopen(fd, "w");
  if (!s->f_) {
    ::close(fd);
    ::unlink(s->tmp_.c_str());
    return Result<std::unique_ptr<OutputSink>>(ErrorKind::kIo, path + ": cannot open the output file");
  }
  return s;
}

OutputSink::~OutputSink() { abandon(); }

void OutputSink::record_done() {
  if (is_stdout_) std::fflush(f_);
}

Status OutputSink::commit() {
  if (!f_) return Status::Ok();
  if (is_stdout_) {
    const bool bad = std::fflush(f_) != 0 || std::ferror(f_);
    f_ = nullptr;
    if (bad) return Status(ErrorKind::kIo, "writing the results to stdout failed");
    return Status::Ok();
  }
  bool bad = std::fflush(f_) != 0 || std::ferror(f_);
  if (!bad && ::fsync(::fileno(f_)) != 0) bad = true;
  const int saved = errno;
  if (std::fclose(f_) != 0) bad = true;
  f_ = nullptr;
  if (bad) {
    ::unlink(tmp_.c_str());
    return Status(ErrorKind::kIo, path_ + ": writing the results failed (" + std::strerror(saved ? saved : errno) +
                                      "); nothing was written under that name");
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp_.c_str());
    return Status(ErrorKind::kIo, path_ + ": cannot move the finished results into place (" + why + ")");
  }
  return Status::Ok();
}

void OutputSink::abandon() {
  if (!f_) return;
  if (is_stdout_) {
    std::fflush(f_);
  } else {
    std::fclose(f_);
    ::unlink(tmp_.c_str());
  }
  f_ = nullptr;
}

}  // namespace mdfi::app
