// Ctrl-C (SIGINT) and SIGTERM during a batch: the handler only records the signal; the batch
// loop stops after the image in progress, writes its records and the summary, and exits with
// 128 + the signal number (130, 143), as shells report a process killed by it. A second signal
// kills at once (the handler restores the default action), so a stuck run can still be stopped.
#pragma once

namespace mdfi::app {

void install_interrupt_handlers();
int interrupt_signal();  // 0, or the signal that asked the batch to stop

}  // namespace mdfi::app
