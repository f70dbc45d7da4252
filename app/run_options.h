// The shared option table of the commands that run a network over images (detect, classify):
// one place that registers every option with its default and help group, so --help is
// complete and the commands cannot drift apart. New run options (memory, threads) go here.
#pragma once

#include <CLI/CLI.hpp>

#include "results.h"
#include "run_common.h"

namespace mdfi::app {

void add_run_options(CLI::App& cmd, RunArgs& args, Task task, const char* default_net);
// --max-pixels on a command: "200M", "1.5G", "40000000" (pixels; M and G are millions and
// billions), into `target`; also used by plan and bench.
CLI::Option* add_max_pixels_option(CLI::App& cmd, long long& target);

}  // namespace mdfi::app
