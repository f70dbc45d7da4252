#include "usage_errors.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace mdfi::app {

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> v;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) v.push_back(sub->get_name());
  return v;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Every "--long" and "-s" name of the command's options and of the global ones.
std::vector<std::string> option_names(CLI::App& app, CLI::App* cmd) {
  std::vector<std::string> v;
  for (CLI::App* a : {&app, cmd}) {
    if (!a) continue;
    for (const CLI::Option* o : a->get_options()) {
      for (const std::string& l : o->get_lnames()) v.push_back("--" + l);
      for (const std::string& s : o->get_snames()) v.push_back("-" + s);
    }
  }
  return v;
}

bool is_global_flag(const std::string& a) {
  return a == "-q" || a == "--quiet" || a == "-v" || a == "--verbose" || a == "--version" || a == "-h" || a == "--help";
}

// The subcommand named on the command line (the first word that is not a global flag).
CLI::App* command_of(CLI::App& app, int argc, char** argv, std::string* word = nullptr) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (is_global_flag(a)) continue;
    if (word) *word = a;
    try {
      return app.get_subcommand(a);
    } catch (const CLI::OptionNotFound&) {
      return nullptr;
    }
  }
  return nullptr;
}

std::string suggestion(const std::string& bad, const std::vector<std::string>& names) {
  const std::string m = did_you_mean(bad, names);
  return m.empty() ? "" : " (did you mean " + m + "?)";
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = 3;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  if (!best.empty()) return best;
  std::string prefix_of;
  for (const std::string& c : candidates)
    if (word.size() >= 3 && c.rfind(word, 0) == 0) {
      if (!prefix_of.empty()) return "";
      prefix_of = c;
    }
  return prefix_of;
}

CLI::Validator number_in(double lo, double hi, bool integer) {
  std::ostringstream range;
  range << std::setprecision(12) << lo << " to " << hi;
  const std::string r = range.str();
  return CLI::Validator(
      [lo, hi, integer, r](std::string& s) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end == s.c_str() || *end || errno) return "'" + s + "' is not a number (" + r + ")";
        if (integer && v != std::floor(v)) return "'" + s + "' is not a whole number (" + r + ")";
        if (!(v >= lo && v <= hi)) return s + " is out of range (" + r + ")";
        return std::string();
      },
      (integer ? "INT " : "NUM ") + r);
}

std::string precheck_usage(CLI::App& app, int argc, char** argv) {
  std::string word;
  CLI::App* cmd = command_of(app, argc, argv, &word);
  if (!cmd) {
    if (word.empty()) return "no command given (commands: " + joined(command_names(app)) + "); see mdfi --help";
    if (word[0] == '-')
      return "unknown option " + word + suggestion(word, option_names(app, nullptr)) +
             " before the command; see mdfi --help";
    const std::string m = did_you_mean(word, command_names(app));
    return "unknown command '" + word + "'" + (m.empty() ? "" : " (did you mean '" + m + "'?)") +
           "; commands: " + joined(command_names(app));
  }
  // `-thresh 0.3` would be read as `-t hresh`: name the two-dash option instead.
  const std::vector<std::string> names = option_names(app, cmd);
  bool after_command = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (!after_command) {
      after_command = a == word;
      continue;
    }
    if (a.size() < 3 || a[0] != '-' || a[1] == '-' || a.find('=') != std::string::npos) continue;
    if (!std::all_of(a.begin() + 1, a.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_' || c == '-'; }))
      continue;
    std::string two = "-" + a;
    std::replace(two.begin(), two.end(), '_', '-');
    if (std::find(names.begin(), names.end(), two) != names.end())
      return a + ": long options take two dashes (did you mean " + two + "?)";
  }
  return "";
}

std::string usage_message(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::string word;
  CLI::App* cmd = command_of(app, argc, argv, &word);
  const std::string help = cmd ? "; see mdfi " + word + " --help" : "; see mdfi --help";
  std::string msg = e.what();
  if (const auto* x = dynamic_cast<const CLI::ExtrasError*>(&e)) {
    (void)x;
    // "The following argument(s) were not expected: A B"
    const size_t colon = msg.find(": ");
    std::istringstream words(colon == std::string::npos ? msg : msg.substr(colon + 2));
    std::string first;
    words >> first;
    if (!first.empty() && first[0] == '-')
      return "unknown option " + first + suggestion(first, option_names(app, cmd)) + help;
    return "unexpected argument '" + first + "'" + help;
  }
  if (msg.find(" required ") != std::string::npos && msg.find(" missing") != std::string::npos)
    return msg.substr(0, msg.find(':')) + " needs a value" + help;
  if (msg == "A subcommand is required") return "no command given (commands: " + joined(command_names(app)) + ")";
  // "--format: jsn not in {text,json,jsonl,csv}": name the closest allowed value.
  const size_t in = msg.find(" not in {");
  if (in != std::string::npos && msg.back() == '}') {
    const size_t colon = msg.find(": ");
    std::vector<std::string> allowed;
    std::istringstream list(msg.substr(in + 9, msg.size() - in - 10));
    for (std::string v; std::getline(list, v, ',');) allowed.push_back(v);
    if (colon != std::string::npos && colon < in) {
      const std::string m = did_you_mean(msg.substr(colon + 2, in - colon - 2), allowed);
      if (!m.empty()) return msg + " (did you mean " + m + "?)" + help;
    }
  }
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  return msg + help;
}

}  // namespace mdfi::app
