// Shared helpers for the tests: paths to the source tree, ../shared and the built binaries,
// running a command, temporary files, and comparing tensors.
#pragma once

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "detect.h"
#include "executor.h"
#include "network.h"

namespace mdfi::test {

std::string source_path(const std::string& rel);  // file in the project
std::string shared_path(const std::string& rel);  // file in ../shared ("" when absent)
bool have_shared_models();
std::string darknet_cfg(const std::string& name);  // /usr/share/darknet/cfg/NAME
std::string tmp_dir(const std::string& name);      // fresh directory under the build tree
std::string mdfi_binary();
std::string refdump_binary();                      // "" when built without darknet tests
std::string ab_refdump_binary();                   // AlexeyAB's (test/refdump_ab); "" when not built

struct CommandResult {
  int exit_code = -1;   // -1 when killed by a signal
  int signal = 0;
  std::string out;      // stdout
  std::string err;      // stderr
};
CommandResult run_command(const std::string& shell_command);

// Small file helpers the tests share: a whole file as bytes ("" when it cannot be read), a file
// written with exactly `text`, and whether a path exists.
std::string slurp(const std::string& path);
void write_file(const std::string& path, const std::string& text);
bool exists(const std::string& path);

// Builds a network from cfg text (written to a temp file so messages have a path).
Result<Network> network_from_text(const std::string& cfg_text, const std::string& name = "test.cfg");

// `text` with every `key=...` line (any spacing) set to `value`.
std::string set_key(const std::string& text, const std::string& key, int value);

// Every layer's output of one run, by layer index.
using LayerOutputs = std::vector<std::vector<float>>;

struct CollectedRun {
  LayerOutputs layers;
  std::unique_ptr<MemoryTracker> mem = std::make_unique<MemoryTracker>();  // counts out's buffers
  RunOutput out;                                                           // the kept outputs (heads)
};
// Runs `input` once through `net` on the CPU with the weights file at `weights_path` and returns
// every layer's output (REQUIREs that the weights fit and the run succeeds). `plan` null: the
// default make_plan(net); a schedule's plan goes with exec.schedule (layers inside a band group
// report no output: theirs stay empty).
CollectedRun run_collect(const Network& net, const std::string& weights_path, const std::vector<float>& input,
                         const ExecOptions& exec = {}, const Plan* plan = nullptr);

struct LayerRunOptions {
  Compat compat = Compat::kPjreddie;
  bool reference = false;           // ExecOptions::reference: the plain loops, else the fast path
  int threads = 1;
  bool expect_no_warnings = false;  // CHECK the cfg has no unused keys
};
// The layer tests' "build cfg -> write weights -> run -> collect outputs": writes `cfg` to
// MDFI_TEST_TMP/layers/TAG.cfg, REQUIREs it builds with exactly params.size() parameters, writes
// them as its weights file (version 0.2) and returns run_collect of `input`.
LayerOutputs run_layers(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                        const std::vector<float>& input, const LayerRunOptions& opt = {});

// A parity case's files: `cfg_text` written to tmp_dir(dir_name)/TAG.cfg and built with `compat`
// (REQUIREd), generated weights (weights_seed) in w.weights and uniform_input(input_seed) as
// input.npy beside it, for libdarknet's side to read.
struct ParityFiles {
  std::string dir, cfg, weights, input_npy;
  Network net;
  std::vector<float> input;
};
ParityFiles prepare_parity(const std::string& dir_name, const std::string& tag, const std::string& cfg_text,
                           Compat compat, uint32_t weights_seed, uint32_t input_seed);

// mdfi's detections as Darknet's detector keeps them: every head decoded (letterboxed input),
// the network's NMS when nms > 0, then those with some class probability over `thresh`.
std::vector<Detection> kept_detections(const Network& net, const RunOutput& out, int img_w, int img_h, float thresh,
                                       float nms);

// The layer cases' shorthands. net_section: a [net] of that input size with batch=64 (a training
// key that must be ignored without a warning). run_once: one path, two threads, no unused keys.
// run_both: both paths; CHECKs layer `layer` against `want` on each and the fast path against the
// reference on every layer; returns the reference outputs. run_tiny: the fast path under `compat`.
std::string net_section(int w, int h, int c);
// A small net whose 3x3 stride-1 layers are Winograd candidates on two map sizes (27x21, 13x10),
// padded and not, between a 3-channel GEMM layer and a 1x1: the Winograd and schedule tests' net.
const char* winograd_test_cfg();
LayerOutputs run_once(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                      const std::vector<float>& input, bool reference);
LayerOutputs run_both(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                      const std::vector<float>& input, size_t layer, const std::vector<float>& want, double tol = 2e-5);
LayerOutputs run_tiny(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                      const std::vector<float>& input, Compat compat = Compat::kPjreddie);

// CHECKs got against want value by value: |got - want| <= tol * max(1, |want|) (a NaN fails).
void check_close(const std::vector<float>& got, const std::vector<float>& want, double tol = 2e-5);

// max|a-b| / max|b| (b = reference); 0 when both are all zero. INFINITY when the sizes differ or
// any element of either is NaN or +-Inf, so every `rel <= tol` check fails on them.
double relative_error(const std::vector<float>& a, const std::vector<float>& b);
double relative_error(const std::vector<float>& a, const std::vector<double>& b);

// n floats uniform in [-1, 1) from mt19937(seed): the same values on every platform run.
std::vector<float> random_floats(size_t n, uint32_t seed);
// n floats from mt19937(seed) through uniform_real_distribution<float>(0, 1): the parity tests'
// network inputs.
std::vector<float> uniform_input(size_t n, uint32_t seed);

// Writes a Darknet weights file (version 0.2.0, 64-bit seen = 0) holding `params`.
void write_weights_file(const std::string& path, const std::vector<float>& params);

// A deterministic weights file for a cfg, generated once per test run and cached. `compat`
// matters: AlexeyAB cfgs (e.g. [route] groups) have other layer sizes under pjreddie's rules.
std::string generated_weights(const std::string& cfg_path, const std::string& tag, Compat compat = Compat::kPjreddie);

}  // namespace mdfi::test

// Skips. Catch2 v2 has no SKIP, so a skip is recorded here and test/main.cpp turns a run that
// skipped something (and failed nothing) into exit code kSkipExitCode, which ctest reports as
// "Skipped" (SKIP_RETURN_CODE in test/CMakeLists.txt). Any failure exits 1, so a skip can never
// hide a failure and no number of failures can look like a skip.
namespace mdfi::test {
constexpr int kSkipExitCode = 77;
// What a skipped test lacks. CI (environment CI=true) provides ../shared, PoCL and libdarknet:
// there a test missing one of them fails instead of skipping. kOther: what CI is not promised
// (a native build where the test runs the binary outside the emulator, a usable ptrace for
// strace): a skip everywhere.
enum class Need { kShared, kOpenCL, kLibdarknet, kOther };
bool ci_provides(Need need);
void record_skip(const std::string& why);
const std::vector<std::string>& recorded_skips();
}  // namespace mdfi::test

// Skips the current test with a clear message; a failure when CI=true (see above).
#define MDFI_SKIP(need, msg)                                                                     \
  do {                                                                                           \
    std::ostringstream _mdfi_why;                                                                \
    _mdfi_why << msg;                                                                            \
    if (mdfi::test::ci_provides(need)) FAIL("CI=true, but CI must provide it: " << _mdfi_why.str()); \
    mdfi::test::record_skip(_mdfi_why.str());                                                    \
    WARN("SKIPPED: " << _mdfi_why.str());                                                        \
    return;                                                                                      \
  } while (0)
