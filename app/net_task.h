// Which command a network is for, decided from the cfg alone: a network with a detection head
// (a [yolo], [region] or [detection] layer, Layer::is_output_head) is a detector; anything else
// (softmax, cost, connected, ... last) is a classifier. Both `-c FILE` and `--net NAME` go
// through here, so `mdfi detect` on a classifier (or the reverse) is refused instead of
// printing nothing or nonsense with exit 0.
#pragma once

#include <string>

#include "network.h"
#include "results.h"
#include "status.h"

namespace mdfi::app {

Task task_of(const Network& net);
// Ok when `net` is for `wanted`; otherwise a usage error naming the right command.
Status check_task(const Network& net, Task wanted, const std::string& cfg_path);

}  // namespace mdfi::app
