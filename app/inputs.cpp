#include "inputs.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace mdfi::app {

bool has_image_extension(const std::string& name) {
  const size_t dot = name.find_last_of('.');
  if (dot == std::string::npos || dot == 0) return false;
  std::string ext = name.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  static const char* const kExts[] = {"jpg", "jpeg", "png", "bmp", "tga", "gif"};
  for (const char* e : kExts)
    if (ext == e) return true;
  return false;
}

static bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Not recursive: a photo folder with thumbnails/ or .git/ inside should not be walked blindly.
static Status add_directory(const std::string& dir, std::vector<std::string>& out) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return Status(ErrorKind::kIo, dir + ": cannot read the directory (" + std::strerror(errno) + ")");
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.' || !has_image_extension(name)) continue;
    names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  const std::string prefix = (!dir.empty() && dir.back() == '/') ? dir : dir + "/";
  for (const std::string& n : names) {
    const std::string p = prefix + n;
    if (!is_dir(p)) out.push_back(p);
  }
  return Status::Ok();
}

static Status add_path(const std::string& p, std::vector<std::string>& out) {
  if (is_dir(p)) return add_directory(p, out);
  out.push_back(p);
  return Status::Ok();
}

Status refuse_model_file(const std::string& p) {
  struct Kind {
    const char *ext, *what, *option;
  };
  static const Kind kinds[] = {{".cfg", "a network cfg", "-c"}, {".weights", "a weights file", "-w"},
                               {".data", "a Darknet .data file", "--data"}};
  for (const Kind& k : kinds) {
    const std::string e(k.ext);
    if (p.size() > e.size() && p.compare(p.size() - e.size(), e.size(), e) == 0)
      return Status(ErrorKind::kUsage, p + ": " + k.what + ", not an image: give it with " + k.option +
                                           " (mdfi also takes Darknet's own order: detect CFG WEIGHTS [IMAGE], options after)");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> expand_inputs(const std::vector<std::string>& paths, const std::string& list_file,
                                               std::istream& list_stdin) {
  std::vector<std::string> out;
  for (const std::string& p : paths) MDFI_RETURN_IF_ERROR(add_path(p, out));
  if (list_file.empty()) return out;
  std::ifstream file;
  std::istream* in = &list_stdin;
  if (list_file != "-") {
    if (is_dir(list_file))
      return Result<std::vector<std::string>>(
          ErrorKind::kUsage, list_file + ": is a directory; --list takes a text file with one image path per line "
                                         "(give a directory as a positional argument to run the images in it)");
    file.open(list_file);
    if (!file) return Result<std::vector<std::string>>(ErrorKind::kIo, list_file + ": cannot open the --list file");
    in = &file;
  }
  std::string line;
  while (std::getline(*in, line)) {
    // Trailing spaces, tabs and a Windows '\r' are never part of a path here; blank lines and
    // '#' comments are what hand-written lists hold.
    const size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos) continue;
    line = line.substr(b, e - b + 1);
    if (line[0] == '#') continue;
    MDFI_RETURN_IF_ERROR(add_path(line, out));
  }
  if (in->bad())
    return Result<std::vector<std::string>>(ErrorKind::kIo, list_file + ": reading the list failed (" +
                                                                std::strerror(errno) + ")");
  return out;
}

}  // namespace mdfi::app
