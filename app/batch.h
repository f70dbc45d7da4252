// The batch loop shared by detect and classify: expand the inputs, open the output, plan the
// network once, then per image run, turn the output into a result record (the command's
// `Postprocess`), write it, draw it, show progress; finally the summary and the exit code.
// One bad image becomes an error record and the batch goes on (unless --fail-fast); a failure
// that is not about one image (weights, memory, output) ends the run with exit code 1 or 4.
#pragma once

#include <functional>

#include "results.h"
#include "run_common.h"

namespace mdfi::app {

// Fills `r.detections` or `r.classes` from a finished run.
using Postprocess = std::function<void(const PreparedModel&, const RunArgs&, const ImageRun&, ImageResult&)>;

int run_batch(RunArgs& args, Task task, const char* default_net, const Postprocess& post);

}  // namespace mdfi::app
