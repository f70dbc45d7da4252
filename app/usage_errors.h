// Usage errors as one line each, `mdfi: error: ...` with a did-you-mean, exit 2: CLI11's own
// messages ("A subcommand is required", "Value hresh not in range") are rephrased, and what
// CLI11 would misread is caught before it parses: an unknown command (`mdfi detct`) and a
// Darknet-style single-dash long option (`-thresh 0.3`, read as `-t hresh`).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace mdfi::app {

// The closest of `candidates` to `word` (edit distance <= 2, or a unique prefix); "" if none.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

// A number check for numeric options with a plain message ("'abc' is not a number (0 to 1024)").
CLI::Validator number_in(double lo, double hi, bool integer);

// Checks argv before CLI11 parses it. Returns "" or the one-line message (without "mdfi: error: ").
std::string precheck_usage(CLI::App& app, int argc, char** argv);

// The one-line message for a CLI11 parse error; `argv` finds the command that was being parsed.
std::string usage_message(CLI::App& app, const CLI::ParseError& e, int argc, char** argv);

}  // namespace mdfi::app
