#include "cfg.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "layer_registry.h"

namespace mdfi {
namespace {

// Sections Darknet's parser.c knows that mdfi does not build, with their spellings: parsed, so
// build_network can say "not supported" rather than "unknown section". The sections mdfi builds,
// and their aliases, come from the layer registry (layer_registry.h).
struct Alias {
  const char* raw;
  const char* canonical;
};
const Alias kNotBuilt[] = {
    {"deconv", "deconvolutional"}, {"deconvolutional", "deconvolutional"}, {"activation", "activation"},
    {"logistic", "logistic"},      {"l2norm", "l2norm"},                   {"rnn", "rnn"},
    {"gru", "gru"},                {"lstm", "lstm"},
    {"iseg", "iseg"},
};

bool spelled(const LayerRegistration& r, const std::string& raw) {
  if (raw == r.section) return true;
  for (const char* a : r.aliases)
    if (raw == a) return true;
  return false;
}

std::string strip_all_space(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s)
    if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' && ch != '\v' && ch != '\f') out += ch;
  return out;
}

std::string loc(const std::string& path, int line) { return path + ":" + std::to_string(line); }

// Text from the cfg quoted in a message: a hostile file can hold a 1 MB line, an error stays one line.
std::string clip(const std::string& s) { return s.size() <= 60 ? s : s.substr(0, 60) + "..."; }

}  // namespace

std::string canonical_section(const std::string& raw) {
  if (spelled(net_registration(), raw)) return net_registration().section;
  for (const LayerRegistration& r : registered_layers())
    if (spelled(r, raw)) return r.section;
  for (const Alias& a : kNotBuilt)
    if (raw == a.raw) return a.canonical;
  return "";
}

const std::vector<std::string>& known_sections() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v{net_registration().section};
    for (const LayerRegistration& r : registered_layers()) v.push_back(r.section);
    for (const Alias& a : kNotBuilt)
      if (std::string(a.raw) == a.canonical && std::find(v.begin(), v.end(), a.raw) == v.end()) v.push_back(a.raw);
    return v;
  }();
  return names;
}

Result<CfgFile> parse_cfg_text(const std::string& text, const std::string& path) {
  CfgFile file;
  file.path = path;
  if (text.find('\0') != std::string::npos)
    return Result<CfgFile>(ErrorKind::kCfg, path + ": not a text cfg file (contains NUL bytes)");
  std::istringstream in(text);
  std::string raw;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    // Inline comments are cut too: Darknet would fold them into the value silently.
    size_t cut = raw.find_first_of("#;");
    std::string line = strip_all_space(cut == std::string::npos ? raw : raw.substr(0, cut));
    if (line.empty()) continue;
    if (line[0] == '[') {
      if (line.back() != ']' || line.size() < 3)
        return Result<CfgFile>(ErrorKind::kCfg, loc(path, line_no) + ": malformed section header '" + clip(line) + "'");
      CfgSection s;
      s.raw_name = line.substr(1, line.size() - 2);
      s.name = canonical_section(s.raw_name);
      s.line = line_no;
      if (s.name.empty()) {
        std::string list;
        for (const auto& n : known_sections()) list += (list.empty() ? "" : " ") + n;
        return Result<CfgFile>(ErrorKind::kCfg, loc(path, line_no) + ": unknown section [" + clip(s.raw_name) +
                                                    "] (known: " + list + ")");
      }
      file.sections.push_back(std::move(s));
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0)
      return Result<CfgFile>(ErrorKind::kCfg,
                             loc(path, line_no) + ": expected key=value, got '" + clip(line) + "'");
    if (file.sections.empty())
      return Result<CfgFile>(ErrorKind::kCfg, loc(path, line_no) + ": key '" + clip(line.substr(0, eq)) +
                                                  "' before any [section]; a cfg starts with [net]");
    CfgOption opt;
    opt.key = line.substr(0, eq);
    opt.value = line.substr(eq + 1);
    opt.line = line_no;
    file.sections.back().options.push_back(std::move(opt));
  }
  if (file.sections.empty()) return Result<CfgFile>(ErrorKind::kCfg, path + ": empty cfg (no [net] section)");
  if (file.sections.front().name != "net")
    return Result<CfgFile>(ErrorKind::kCfg, loc(path, file.sections.front().line) +
                                                ": first section must be [net], got [" +
                                                clip(file.sections.front().raw_name) + "]");
  return file;
}

Result<CfgFile> parse_cfg_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Result<CfgFile>(ErrorKind::kIo, path + ": is a directory, not a cfg file");
  std::ifstream f(path, std::ios::binary);
  if (!f) return Result<CfgFile>(ErrorKind::kIo, path + ": cannot open cfg file (" + std::strerror(errno) + ")");
  // A cfg is a few kB; refuse anything absurdly large before reading it into memory.
  f.seekg(0, std::ios::end);
  std::streamoff size = f.tellg();
  if (size < 0) return Result<CfgFile>(ErrorKind::kIo, path + ": cannot read cfg file (is it a directory?)");
  if (size > (16 << 20)) return Result<CfgFile>(ErrorKind::kCfg, path + ": cfg file larger than 16 MiB, refused");
  f.seekg(0);
  std::string text(static_cast<size_t>(size), '\0');
  if (!f.read(&text[0], size)) return Result<CfgFile>(ErrorKind::kIo, path + ": cannot read cfg file");
  return parse_cfg_text(text, path);
}

const CfgOption* SectionReader::find(const char* key) const {
  // Darknet takes the first occurrence of a repeated key.
  for (const CfgOption& o : section_.options)
    if (o.key == key) return &o;
  return nullptr;
}

bool SectionReader::has(const char* key) const { return find(key) != nullptr; }

std::string SectionReader::where(const char* key) const {
  const CfgOption* o = key ? find(key) : nullptr;
  return loc(file_.path, o ? o->line : section_.line);
}

Result<int> SectionReader::get_int(const char* key, int fallback) const {
  const CfgOption* o = find(key);
  if (!o) return fallback;
  o->used = true;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(o->value.c_str(), &end, 10);
  if (o->value.empty() || *end != '\0' || errno == ERANGE || v > 1000000000L || v < -1000000000L)
    return Result<int>(ErrorKind::kCfg, where(key) + ": '" + key + "' expects an integer, got '" + clip(o->value) + "'");
  return int(v);
}

Result<int> SectionReader::require_int(const char* key) const {
  if (!find(key))
    return Result<int>(ErrorKind::kCfg, where() + ": [" + section_.raw_name + "] needs '" + key + "'");
  return get_int(key, 0);
}

Result<float> SectionReader::get_float(const char* key, float fallback) const {
  const CfgOption* o = find(key);
  if (!o) return fallback;
  o->used = true;
  char* end = nullptr;
  float v = std::strtof(o->value.c_str(), &end);
  if (o->value.empty() || *end != '\0' || !std::isfinite(v))
    return Result<float>(ErrorKind::kCfg, where(key) + ": '" + key + "' expects a number, got '" + clip(o->value) + "'");
  return v;
}

std::string SectionReader::get_string(const char* key, const std::string& fallback) const {
  const CfgOption* o = find(key);
  if (!o) return fallback;
  o->used = true;
  return o->value;
}

template <typename T, typename Conv>
static Result<std::vector<T>> parse_list(const SectionReader& r, const CfgOption* o, const char* key, Conv conv,
                                         const char* what) {
  std::vector<T> out;
  if (!o) return out;
  o->used = true;
  std::string item;
  std::istringstream in(o->value);
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;  // Darknet tolerates trailing commas
    char* end = nullptr;
    errno = 0;
    T v = conv(item.c_str(), &end);
    if (*end != '\0' || errno == ERANGE)
      return Result<std::vector<T>>(ErrorKind::kCfg, r.where(key) + ": '" + key + "' expects a list of " + what +
                                                         ", got '" + clip(item) + "'");
    out.push_back(v);
    if (out.size() > 100000)
      return Result<std::vector<T>>(ErrorKind::kCfg, r.where(key) + ": '" + key + "' list is absurdly long");
  }
  return out;
}

Result<std::vector<int>> SectionReader::get_int_list(const char* key) const {
  return parse_list<int>(*this, find(key), key,
                         [](const char* s, char** e) {
                           long v = std::strtol(s, e, 10);
                           if (v > 1000000000L || v < -1000000000L) errno = ERANGE;
                           return int(v);
                         },
                         "integers");
}

Result<std::vector<float>> SectionReader::get_float_list(const char* key) const {
  return parse_list<float>(*this, find(key), key,
                           [](const char* s, char** e) {
                             // "nan"/"inf" parse as floats but would poison every box: refuse them.
                             const float v = std::strtof(s, e);
                             if (!std::isfinite(v)) errno = ERANGE;
                             return v;
                           },
                           "finite numbers");
}

void SectionReader::ignore(std::initializer_list<const char*> keys) const {
  for (const char* k : keys)
    for (const CfgOption& o : section_.options)
      if (o.key == k) o.used = true;
}

std::vector<std::string> unused_key_warnings(const CfgFile& file) {
  std::vector<std::string> out;
  for (const CfgSection& s : file.sections)
    for (const CfgOption& o : s.options)
      if (!o.used) out.push_back(loc(file.path, o.line) + ": unused key '" + clip(o.key) + "' in [" + s.raw_name + "]");
  return out;
}

}  // namespace mdfi
