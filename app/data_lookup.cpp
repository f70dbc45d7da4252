#include "data_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "embedded_data.h"

#ifndef MDFI_SOURCE_DIR
#define MDFI_SOURCE_DIR ""
#endif
#ifndef MDFI_BUILD_DIR
#define MDFI_BUILD_DIR ""
#endif

namespace mdfi::app {

namespace {

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The source tree is consulted only by a binary inside its own build tree (the developer's
// build/app/mdfi): an installed or copied binary must not depend on, or be changed by, a tree
// that happens to still exist on the machine it was built on. MDFI_BUILD_DIR is canonical
// (resolved by CMake) and so is /proc/self/exe, so comparing the strings touches no file.
bool runs_from_build_tree(const std::string& dir) {
  const std::string build = MDFI_BUILD_DIR;
  return !build.empty() && (dir == build || dir.rfind(build + "/", 0) == 0);
}

}  // namespace

std::string exe_dir() {
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  exe[n] = '\0';
  const std::string s(exe);
  return s.substr(0, s.rfind('/'));
}

std::vector<std::string> data_dirs() {
  std::vector<std::string> dirs;
  const std::string exe = exe_dir();
  if (!exe.empty()) dirs.push_back(exe.substr(0, exe.rfind('/')) + "/share/mdfi");  // <exe dir>/../share/mdfi
  if (const char* env = std::getenv("MDFI_DATA_DIR"); env && *env) dirs.push_back(env);
  if (!exe.empty() && runs_from_build_tree(exe) && *MDFI_SOURCE_DIR) dirs.push_back(MDFI_SOURCE_DIR);
  return dirs;
}

bool is_embedded(const std::string& rel) {
  for (size_t i = 0; i < kEmbeddedFileCount; ++i)
    if (rel == kEmbeddedFiles[i].path) return true;
  return false;
}

DataRef find_data(const std::string& rel) {
  DataRef r;
  for (const std::string& dir : data_dirs()) {
    const std::string p = dir + "/" + rel;
    if (is_file(p)) {
      r.path = p;
      return r;
    }
  }
  for (size_t i = 0; i < kEmbeddedFileCount; ++i)
    if (rel == kEmbeddedFiles[i].path) {
      r.embedded = std::string_view(kEmbeddedFiles[i].text, kEmbeddedFiles[i].size);
      return r;
    }
  return r;
}

}  // namespace mdfi::app
