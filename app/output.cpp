// The output sink and the format table; the writers live in output_<format>.cpp.
#include "output.h"

#include <fcntl.h>
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
  if (name == "darknet-json") return Format::kDarknetJson;
  return Result<Format>(ErrorKind::kUsage, "unknown format '" + name + "' (text, json, jsonl, csv, darknet-json)");
}

std::unique_ptr<ResultWriter> make_writer(Format f, Task task) {
  switch (f) {
    case Format::kJson: return make_json_writer(task);
    case Format::kJsonl: return make_jsonl_writer(task);
    case Format::kCsv: return make_csv_writer(task);
    case Format::kDarknetJson: return make_darknet_json_writer();
    case Format::kText: break;
  }
  return make_text_writer(task);
}

static std::string dir_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

Status OutputSink::check_writable(const std::string& path) {
  if (path.empty() || path == "-") return Status::Ok();
  struct stat st {};
  const std::string dir = dir_of(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status(ErrorKind::kIo, path + ": cannot create the output file (no directory " + dir + ")");
  if (::access(dir.c_str(), W_OK) != 0)
    return Status(ErrorKind::kIo, path + ": cannot create the output file (" + dir + " is not writable)");
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Status(ErrorKind::kIo, path + ": is a directory; -o takes a file name");
  return Status::Ok();
}

Result<std::unique_ptr<OutputSink>> OutputSink::open(const std::string& path, Mode mode) {
  std::unique_ptr<OutputSink> s(new OutputSink());
  if (path.empty() || path == "-") {
    s->f_ = stdout;
    return s;
  }
  s->is_stdout_ = false;
  s->path_ = path;
  // A target that exists and is not a regular file (/dev/null, a FIFO, /dev/stdout, a shell's
  // >(...) pipe) is written in place: a rename would replace the device or pipe itself, and it
  // cannot be synced to a disk.
  struct stat target {};
  s->special_ = ::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode);
  if (s->special_ && mode == Mode::kAtomic) mode = Mode::kLines;
  s->mode_ = mode;
  if (mode != Mode::kAtomic) {
    s->f_ = std::fopen(path.c_str(), mode == Mode::kAppend ? "a" : "w");
    if (!s->f_)
      return Result<std::unique_ptr<OutputSink>>(ErrorKind::kIo,
                                                  path + ": cannot open the output file (" + std::strerror(errno) + ")");
    return s;
  }
  // Preferably an unnamed file (O_TMPFILE) in the target's directory: if mdfi is killed
  // (Ctrl-C, OOM killer) nothing is left behind. It gets a name only in commit().
  const std::string dir = dir_of(path);
  int fd = -1;
#ifdef O_TMPFILE
  fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#endif
  if (fd < 0) {
    // File systems without O_TMPFILE: a named temp file, removed on every failure path we see.
    s->tmp_ = path + ".tmp.XXXXXX";
    fd = ::mkstemp(s->tmp_.data());
    if (fd < 0)
      return Result<std::unique_ptr<OutputSink>>(ErrorKind::kIo,
                                                  path + ": cannot create the output file (" + std::strerror(errno) + ")");
    ::fchmod(fd, 0644);  // mkstemp makes 0600; results are ordinary files
  }
  s->f_ = ::fdopen(fd, "w");
  if (!s->f_) {
    ::close(fd);
    if (!s->tmp_.empty()) ::unlink(s->tmp_.c_str());
    return Result<std::unique_ptr<OutputSink>>(ErrorKind::kIo, path + ": cannot open the output file");
  }
  return s;
}

OutputSink::~OutputSink() { abandon(); }

void OutputSink::record_done() {
  ++records_;
  if (is_stdout_ || mode_ != Mode::kAtomic) std::fflush(f_);
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
  if (!bad && !special_ && ::fsync(::fileno(f_)) != 0) bad = true;
  int saved = bad ? errno : 0;
  if (mode_ != Mode::kAtomic) {
    if (std::fclose(f_) != 0) bad = true;
    f_ = nullptr;
    if (bad) return Status(ErrorKind::kIo, path_ + ": writing the results failed (" + std::strerror(saved ? saved : errno) + ")");
    return Status::Ok();
  }
  if (!bad && tmp_.empty()) {
    // Give the unnamed file a unique temporary name, then rename it over the target (linkat
    // cannot replace an existing file; rename can, atomically).
    const std::string proc = "/proc/self/fd/" + std::to_string(::fileno(f_));
    for (int k = 0; k < 100 && tmp_.empty(); ++k) {
      const std::string candidate = path_ + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(k);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0)
        tmp_ = candidate;
      else if (errno != EEXIST)
        break;
    }
    if (tmp_.empty()) bad = true, saved = errno;
  }
  if (std::fclose(f_) != 0) bad = true;
  f_ = nullptr;
  if (bad) {
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
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
  } else if (mode_ != Mode::kAtomic) {
    std::fclose(f_);  // the finished records stay: each one is complete
    if (mode_ == Mode::kLines && records_ == 0) ::unlink(path_.c_str());
  } else {
    std::fclose(f_);  // an unnamed O_TMPFILE file simply disappears
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
  }
  f_ = nullptr;
}

}  // namespace mdfi::app
