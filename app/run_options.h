// The shared option table of the commands that run a network over images (detect, classify):
// one place that registers every option with its default and help group, so --help is
// complete and the commands cannot drift apart. New run options (memory, threads) go here.
#pragma once

#include <CLI/CLI.hpp>

#include "results.h"
#include "run_common.h"

namespace mdfi::app {

void add_run_options(CLI::App& cmd, RunArgs& args, Task task, const char* default_net);

}  // namespace mdfi::app
