// Darknet's cfg grammar: `[section]` headers (with Darknet's aliases), `key=value` lines where
// whitespace anywhere is ignored, whole-line comments starting with `#` or `;`, CRLF tolerated.
// The parser keeps the line of every section and key so later errors can say file:line, and
// remembers which keys were read so unknown ones can be reported (Darknet's typo catcher).
#pragma once

#include <string>
#include <vector>

#include "status.h"

namespace mdfi {

struct CfgOption {
  std::string key;
  std::string value;
  int line = 0;
  mutable bool used = false;
};

struct CfgSection {
  std::string name;      // canonical name, e.g. "convolutional" for [conv]
  std::string raw_name;  // as written, e.g. "conv"
  int line = 0;
  std::vector<CfgOption> options;
};

struct CfgFile {
  std::string path;
  std::vector<CfgSection> sections;
};

// Canonical section name for a header as written (aliases resolved), or "" when unknown.
std::string canonical_section(const std::string& raw);
// Every canonical section name the parser accepts, for error messages.
const std::vector<std::string>& known_sections();

Result<CfgFile> parse_cfg_text(const std::string& text, const std::string& path);
Result<CfgFile> parse_cfg_file(const std::string& path);

// Typed access to one section's keys. Lookups mark keys as used; malformed values become an
// error naming file:line and the key.
class SectionReader {
 public:
  SectionReader(const CfgFile& file, const CfgSection& section) : file_(file), section_(section) {}

  bool has(const char* key) const;
  Result<int> get_int(const char* key, int fallback) const;
  Result<int> require_int(const char* key) const;
  Result<float> get_float(const char* key, float fallback) const;
  std::string get_string(const char* key, const std::string& fallback) const;
  Result<std::vector<int>> get_int_list(const char* key) const;      // empty when absent
  Result<std::vector<float>> get_float_list(const char* key) const;  // empty when absent
  // Marks keys that only matter for training as used, so they are not reported as unknown.
  void ignore(std::initializer_list<const char*> keys) const;

  // "file:line" of a key (or of the section header when absent).
  std::string where(const char* key = nullptr) const;
  const CfgSection& section() const { return section_; }
  const CfgFile& file() const { return file_; }

 private:
  const CfgOption* find(const char* key) const;
  const CfgFile& file_;
  const CfgSection& section_;
};

// Keys no reader looked at, as warnings "file:line: unused key 'x' in [section]".
std::vector<std::string> unused_key_warnings(const CfgFile& file);

}  // namespace mdfi
