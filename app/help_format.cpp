#include "help_format.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace mdfi::app {

size_t help_width() {
  if (const char* env = std::getenv("COLUMNS"); env && *env) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (*end == '\0' && n >= 40 && n < 80) return size_t(n);
  }
  return 80;
}

size_t text_columns(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

namespace {

// Byte offset of the code point that starts column `col` (s.size() when s is narrower).
size_t byte_at_column(const std::string& s, size_t col) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (n == col) return i;
    ++n;
  }
  return s.size();
}

size_t leading_spaces(const std::string& s) {
  const size_t p = s.find_first_not_of(' ');
  return p == std::string::npos ? s.size() : p;
}

// Each line of `text` wrapped; `hang_of` gives the hanging indent of a line.
template <class Hang>
std::string wrap_lines(const std::string& text, size_t width, Hang hang_of) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += wrap_line(line, width, hang_of(line)) + "\n";
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

// Where the continuation of a free-form line (footer, description) goes: under the text after
// the first gap of two or more spaces that follows the line's first word ("  2  usage error",
// "  MDFI_WEIGHTS   directory ..."), else two columns in from the line's own indent (none for
// a paragraph that starts at the margin).
size_t natural_hang(const std::string& line) {
  const size_t lead = leading_spaces(line);
  const size_t gap = line.find("  ", lead);
  if (gap != std::string::npos) {
    const size_t text = line.find_first_not_of(' ', gap);
    if (text != std::string::npos) return text_columns(std::string_view(line).substr(0, text));
  }
  return lead == 0 ? 0 : lead + 2;  // a paragraph, or a command under its first word
}

class WrappingFormatter : public CLI::Formatter {
 public:
  // "  NAME  description": the description from the column width on, wrapped under itself; its
  // own lines ('\n') each start at that column; a name too wide for the column stands alone.
  std::string two_columns(const std::string& name, const std::string& desc) const {
    const size_t width = help_width();
    // Narrower help narrows the name column first, keeping 40 or more columns of description.
    const size_t col = std::min(column_width_, std::max(width > 50 ? width - 50 : 0, width / 3));
    const std::string left = "  " + name;
    std::string out;
    if (desc.empty()) return wrap_line(left, width, 6) + "\n";
    std::istringstream paras(desc);
    std::string para;
    bool first = true;
    const size_t left_cols = text_columns(left);
    if (left_cols >= col) {
      out += wrap_line(left, width, 6) + "\n";
      first = false;
    }
    while (std::getline(paras, para)) {
      const std::string line = first ? left + std::string(col - left_cols, ' ') + para : std::string(col, ' ') + para;
      out += wrap_line(line, width, col) + "\n";
      first = false;
    }
    return out;
  }

  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    return two_columns(make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt));
  }

  std::string make_subcommand(const CLI::App* sub) const override {
    return two_columns(sub->get_display_name(true), sub->get_description());
  }

  std::string make_description(const CLI::App* app) const override {
    return wrap_lines(CLI::Formatter::make_description(app), help_width(), [](const std::string&) { return 0; });
  }

  std::string make_usage(const CLI::App* app, std::string name) const override {
    return wrap_lines(CLI::Formatter::make_usage(app, std::move(name)), help_width(),
                      [](const std::string&) { return 7; });  // under what follows "Usage: "
  }

  std::string make_footer(const CLI::App* app) const override {
    return wrap_lines(CLI::Formatter::make_footer(app), help_width(), natural_hang);
  }
};

}  // namespace

std::string wrap_line(const std::string& line, size_t width, size_t hang) {
  if (width < 2) width = 2;
  if (hang > width / 2) hang = width / 2;
  const std::string pad(hang, ' ');
  std::string rest = line;
  std::string out;
  while (text_columns(rest) > width) {
    const size_t lead = leading_spaces(rest);
    const size_t limit = byte_at_column(rest, width);  // rest[0, limit) fits
    size_t cut = rest.rfind(' ', limit);
    std::string head, tail;
    if (cut != std::string::npos && cut > lead) {
      head = rest.substr(0, cut);
      head.erase(head.find_last_not_of(' ') + 1);
      tail = rest.substr(cut);
    } else {  // no space to break at: cut the word
      head = rest.substr(0, limit);
      tail = rest.substr(limit);
    }
    const size_t start = tail.find_first_not_of(' ');
    out += head + "\n";
    if (start == std::string::npos) return out.substr(0, out.size() - 1);
    rest = pad + tail.substr(start);
  }
  return out + rest;
}

std::shared_ptr<CLI::Formatter> make_help_formatter() { return std::make_shared<WrappingFormatter>(); }

}  // namespace mdfi::app
