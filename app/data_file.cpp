#include "data_file.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mdfi::app {

namespace {

// Darknet's strip(): every space, tab and line end goes, wherever it is.
std::string strip(const std::string& s) {
  std::string out;
  for (char ch : s)
    if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') out += ch;
  return out;
}

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

Result<std::string> read_text(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Result<std::string>(ErrorKind::kIo, path + ": cannot open " + what);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

const DataFile::Entry* DataFile::find(const std::string& key) const {
  for (const Entry& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

int DataFile::classes() const {
  const Entry* e = find("classes");
  if (!e || e->value.empty()) return -1;
  char* end = nullptr;
  const long v = std::strtol(e->value.c_str(), &end, 10);
  return (*end == '\0' && v > 0 && v < 1000000) ? int(v) : -1;
}

const DataFile::Entry* DataFile::names_entry() const {
  if (const Entry* e = find("names")) return e;
  return find("labels");
}

Result<DataFile> parse_data_text(const std::string& text, const std::string& path) {
  DataFile d;
  d.path = path;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::string s = strip(raw);
    if (s.empty() || s[0] == '#' || s[0] == ';') continue;
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      return Result<DataFile>(ErrorKind::kCfg, path + ":" + std::to_string(line) +
                                                     ": not a Darknet .data line (key=value expected): '" +
                                                     s.substr(0, 60) + "'");
    d.entries.push_back({s.substr(0, eq), s.substr(eq + 1), line});
  }
  if (const DataFile::Entry* c = d.find("classes"); c && d.classes() < 0)
    return Result<DataFile>(ErrorKind::kCfg, path + ":" + std::to_string(c->line) + ": classes must be a positive integer (got '" +
                                                   c->value.substr(0, 40) + "')");
  return d;
}

Result<DataFile> parse_data_file(const std::string& path) {
  MDFI_ASSIGN_OR_RETURN(auto text, read_text(path, "data file"));
  return parse_data_text(text, path);
}

Result<std::string> resolve_names_path(const DataFile& data) {
  const DataFile::Entry* e = data.names_entry();
  if (!e) return Result<std::string>(ErrorKind::kUsage, data.path + ": no names= line (the label list)");
  if (e->value.empty())
    return Result<std::string>(ErrorKind::kCfg, data.path + ":" + std::to_string(e->line) + ": " + e->key + "= is empty");
  std::vector<std::string> tries = {e->value};
  if (e->value[0] != '/') {
    const std::string dir = dir_of(data.path);
    tries.push_back(dir + "/" + e->value);
    tries.push_back(dir + "/../" + e->value);
  }
  std::string looked;
  for (const std::string& p : tries) {
    if (is_file(p)) return p;
    looked += (looked.empty() ? "" : ", ") + p;
  }
  return Result<std::string>(ErrorKind::kIo, data.path + ":" + std::to_string(e->line) + ": " + e->key + "=" + e->value +
                                                 ": no such file (looked at " + looked + ")");
}

bool looks_like_data_text(const std::string& text) {
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    const std::string s = strip(raw);
    for (const char* k : {"classes=", "names=", "train=", "valid=", "backup="})
      if (s.rfind(k, 0) == 0) return true;
  }
  return false;
}

bool looks_like_data_file(const std::string& path) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".data") == 0) return true;
  auto text = read_text(path, "file");
  return text.ok() && looks_like_data_text(*text);
}

}  // namespace mdfi::app
