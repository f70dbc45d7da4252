// Shared helpers for the tests: paths to the source tree, ../shared and the built binaries,
// running a command, temporary files, and comparing tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "network.h"

namespace mdfi::test {

std::string source_path(const std::string& rel);  // file in the project
std::string shared_path(const std::string& rel);  // file in ../shared ("" when absent)
bool have_shared_models();
std::string darknet_cfg(const std::string& name);  // /usr/share/darknet/cfg/NAME
std::string tmp_dir(const std::string& name);      // fresh directory under the build tree
std::string mdfi_binary();
std::string refdump_binary();                      // "" when built without darknet tests

struct CommandResult {
  int exit_code = -1;   // -1 when killed by a signal
  int signal = 0;
  std::string out;      // stdout
  std::string err;      // stderr
};
CommandResult run_command(const std::string& shell_command);

// Builds a network from cfg text (written to a temp file so messages have a path).
Result<Network> network_from_text(const std::string& cfg_text, const std::string& name = "test.cfg");

// max|a-b| / max|b| (b = reference); 0 when both are all zero.
double relative_error(const std::vector<float>& a, const std::vector<float>& b);

// n floats uniform in [-1, 1) from mt19937(seed): the same values on every platform run.
std::vector<float> random_floats(size_t n, uint32_t seed);

// Writes a Darknet weights file (version 0.2.0, 64-bit seen = 0) holding `params`.
void write_weights_file(const std::string& path, const std::vector<float>& params);

// A deterministic weights file for a cfg, generated once per test run and cached.
std::string generated_weights(const std::string& cfg_path, const std::string& tag);

}  // namespace mdfi::test

// Skips the current test with a clear message (Catch2 v2 has no SKIP).
#define MDFI_SKIP(msg)                                    \
  do {                                                    \
    WARN("SKIPPED: " << msg);                             \
    return;                                               \
  } while (0)
