// One function per subcommand; each registers its options and returns its action.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "status.h"

namespace mdfi::app {

using Action = std::function<int()>;

Action add_info_command(CLI::App& app);
Action add_plan_command(CLI::App& app);
Action add_gen_weights_command(CLI::App& app);
Action add_detect_command(CLI::App& app);
Action add_classify_command(CLI::App& app);
Action add_models_command(CLI::App& app);
Action add_bench_command(CLI::App& app);  // cmd_bench.cpp
Action add_devices_command(CLI::App& app);  // cmd_devices.cpp (OpenCL)
Action add_merge_command(CLI::App& app);    // cmd_merge.cpp (JSONL results of several runs)

// Global verbosity from -q / -v.
struct Verbosity {
  bool quiet = false;
  bool verbose = false;
};
Verbosity& verbosity();

// Prints an error line on stderr ("mdfi: ...") and returns the exit code for it.
int report(const mdfi::Status& st);

}  // namespace mdfi::app
