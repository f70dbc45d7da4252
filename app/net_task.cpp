#include "net_task.h"

namespace mdfi::app {

Task task_of(const Network& net) {
  for (const auto& l : net.layers)
    if (l->is_output_head()) return Task::kDetect;
  return Task::kClassify;
}

Status check_task(const Network& net, Task wanted, const std::string& cfg_path) {
  const Task is = task_of(net);
  if (is == wanted) return Status::Ok();
  if (is == Task::kDetect) {
    std::string head;
    for (const auto& l : net.layers)
      if (l->is_output_head()) head = l->kind();
    return Status(ErrorKind::kUsage, cfg_path + " is a detector (it has a [" + head +
                                         "] layer); run it with `mdfi detect`, not `mdfi classify`");
  }
  return Status(ErrorKind::kUsage, cfg_path + " is a classifier (its last layer is [" + net.layers.back()->kind() +
                                       "], no detection layer); run it with `mdfi classify`, not `mdfi detect`");
}

}  // namespace mdfi::app
