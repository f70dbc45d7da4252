#include "resume.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "path_guard.h"

namespace mdfi::app {

namespace {

// The first field of the CSV row starting at `pos` (RFC 4180: quoted fields may hold commas,
// doubled quotes and newlines); moves `pos` past the row.
std::string csv_first_field(const std::string& t, size_t& pos) {
  std::string first;
  int field = 0;
  bool quoted = false, at_start = true;
  size_t i = pos;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (quoted) {
      if (c == '"' && i + 1 < t.size() && t[i + 1] == '"') {
        if (field == 0) first += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else if (field == 0) {
        first += c;
      }
      continue;
    }
    if (c == '"' && at_start) {
      quoted = true;
      at_start = false;
      continue;
    }
    at_start = false;
    if (c == '\n') break;
    if (c == ',') {
      ++field;
      at_start = true;
      continue;
    }
    if (field == 0) first += c;
  }
  pos = i < t.size() ? i + 1 : t.size();
  return first;
}

}  // namespace

std::string record_key(const std::string& image, bool stream) {
  if (stream) {
    const size_t hash = image.find_last_of('#');
    if (hash != std::string::npos && hash + 1 < image.size() &&
        image.find_first_not_of("0123456789", hash + 1) == std::string::npos)
      return input_key(image.substr(0, hash)) + image.substr(hash);
  }
  return input_key(image);
}

Result<Recorded> read_recorded(const std::string& path, Format format, bool stream) {
  Recorded r;
  std::ifstream f(path, std::ios::binary);
  if (!f) return r;
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  f.close();
  // Drop a last record cut short: everything after the last newline.
  const size_t keep = text.empty() ? 0 : text.find_last_of('\n') == std::string::npos ? 0 : text.find_last_of('\n') + 1;
  if (keep < text.size()) {
    if (::truncate(path.c_str(), off_t(keep)) != 0)
      return Result<Recorded>(ErrorKind::kIo, path + ": cannot drop its unfinished last line (" +
                                                  std::strerror(errno) + ")");
    text.resize(keep);
  }
  r.file_has_data = !text.empty();
  if (format == Format::kJsonl) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("image") || !j["image"].is_string())
        return Result<Recorded>(ErrorKind::kUsage, path + ": --resume: a line is not an mdfi JSONL record: " +
                                                       line.substr(0, 80));
      if (j.contains("path") && j["path"].is_string())
        r.keys.insert(j["path"].get<std::string>());
      else
        r.keys.insert(record_key(j["image"].get<std::string>(), stream));
      if (j.contains("shard") && j["shard"].is_string()) r.shards.insert(j["shard"].get<std::string>());
    }
  } else if (format == Format::kCsv) {
    size_t pos = 0;
    bool header = true;
    while (pos < text.size()) {
      std::string img = csv_first_field(text, pos);
      if (header) {
        if (img != "image") return Result<Recorded>(ErrorKind::kUsage, path + ": --resume: not an mdfi CSV file");
        header = false;
        continue;
      }
      r.keys.insert(record_key(img, stream));
    }
  } else if (format == Format::kText) {
    // "PATH:" starts a record, "PATH: error: why" is a failed one; box and class lines are
    // "name: NN%..." / "NN.NN%: name" and never end in ':'.
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (!line.empty() && line.back() == ':') {
        r.keys.insert(record_key(line.substr(0, line.size() - 1), stream));
        continue;
      }
      const size_t e = line.rfind(": error: ");
      if (e != std::string::npos && line.find('%') == std::string::npos) r.keys.insert(record_key(line.substr(0, e), stream));
    }
  } else {
    return Result<Recorded>(ErrorKind::kUsage, "--resume needs a line format (--format jsonl, csv or text): a JSON "
                                               "array is written all-or-nothing");
  }
  return r;
}

}  // namespace mdfi::app
