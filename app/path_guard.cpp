#include "path_guard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace mdfi::app {

std::string canonical_path(const std::string& path) {
  if (path.empty()) return "";
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf)) return buf;
  // Not there yet: resolve the directory, keep the last component.
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const size_t slash = p.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
  const std::string base = slash == std::string::npos ? p : p.substr(slash + 1);
  if (!::realpath(dir.c_str(), buf)) return "";
  const std::string d = buf;
  return (d == "/" ? "" : d) + "/" + base;
}

void InputFiles::add(const std::string& path) {
  if (path.empty() || path == "-") return;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) ids_.insert({st.st_dev, st.st_ino});
  const std::string c = canonical_path(path);
  if (!c.empty()) canonical_.insert(c);
}

bool InputFiles::is_input(const std::string& path) const {
  if (path.empty() || path == "-") return false;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && ids_.count({st.st_dev, st.st_ino})) return true;
  const std::string c = canonical_path(path);
  return !c.empty() && canonical_.count(c) > 0;
}

Status InputFiles::check_output(const std::string& path, const char* what) const {
  if (!is_input(path)) return Status::Ok();
  return Status(ErrorKind::kUsage, std::string(what) + " " + path +
                                       " is one of this run's input files; refusing to overwrite it (nothing was written)");
}

}  // namespace mdfi::app
