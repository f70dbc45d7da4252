// The --help layout: CLI11's, wrapped to fit an 80-column terminal. Option and command
// descriptions continue under their own first word (a hanging indent at the description column),
// other long lines under the text they belong to. The man page is made from this text
// (cmake/make_manpage.cmake), so it is wrapped as well.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace mdfi::app {

// The width the help is wrapped to: 80, or $COLUMNS when that is a number from 40 to 79 (a
// narrower terminal; the man page generator asks for the width left by the page's indent).
size_t help_width();

// Display columns of UTF-8 text: its code points (every byte but the continuation bytes).
size_t text_columns(std::string_view s);

// One line (no '\n') broken at spaces so that no piece is wider than `width` columns; the
// pieces after the first start with `hang` spaces. A word wider than the room left is cut.
std::string wrap_line(const std::string& line, size_t width, size_t hang);

// The formatter to give the top-level app before its subcommands are added (they copy it).
std::shared_ptr<CLI::Formatter> make_help_formatter();

}  // namespace mdfi::app
