#include "path_guard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

std::string input_key(const std::string& path) {
  if (path.empty() || path == "-") return path;
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const size_t slash = p.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
  const std::string base = slash == std::string::npos ? p : p.substr(slash + 1);
  char buf[PATH_MAX];
  if (base != "." && base != ".." && ::realpath(dir.c_str(), buf)) {
    const std::string d = buf;
    return (d == "/" ? "" : d) + "/" + base;
  }
  if (::realpath(p.c_str(), buf)) return buf;
  // The directory is not there either (a missing input): absolute, as given.
  if (p[0] == '/') return p;
  if (::getcwd(buf, sizeof buf)) return std::string(buf) + "/" + p;
  return p;
}

namespace {

// What kind of picture the first bytes are; nullptr for none.
const char* picture_kind(const unsigned char* b, size_t n) {
  auto is = [&](const char* sig, size_t len, size_t at = 0) {
    return n >= at + len && std::memcmp(b + at, sig, len) == 0;
  };
  if (is("\xFF\xD8\xFF", 3)) return "JPEG";
  if (is("\x89PNG", 4)) return "PNG";
  if (is("GIF87a", 6) || is("GIF89a", 6)) return "GIF";
  if (is("BM", 2) && n >= 14) return "BMP";
  if (is("II*\0", 4) || is("MM\0*", 4)) return "TIFF";
  if (is("RIFF", 4) && is("WEBP", 4, 8)) return "WebP";
  if (n >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7' && (b[2] == '\n' || b[2] == ' ' || b[2] == '\r' || b[2] == '\t'))
    return "PNM";
  if (is("ftyp", 4, 4) && (is("heic", 4, 8) || is("heix", 4, 8) || is("mif1", 4, 8) || is("avif", 4, 8)))
    return "HEIF";
  return nullptr;
}

const char* picture_kind_of(const std::string& path) {
  struct stat st {};
  if (path.empty() || path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return nullptr;
  unsigned char b[16] = {};
  const size_t n = std::fread(b, 1, sizeof b, f);
  std::fclose(f);
  return picture_kind(b, n);
}

}  // namespace

bool is_picture_file(const std::string& path) { return picture_kind_of(path) != nullptr; }

Status refuse_picture(const std::string& path, const char* what, bool force) {
  if (force) return Status::Ok();
  const char* kind = picture_kind_of(path);
  if (!kind) return Status::Ok();
  return Status(ErrorKind::kUsage, std::string(what) + " " + path + " is an existing " + kind +
                                       " picture; refusing to replace it with this output (--force replaces it)");
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

Status InputFiles::check_output(const std::string& path, const char* what, bool force) const {
  if (!is_input(path)) return refuse_picture(path, what, force);
  return Status(ErrorKind::kUsage, std::string(what) + " " + path +
                                       " is one of this run's input files; refusing to overwrite it (nothing was written)");
}

}  // namespace mdfi::app
