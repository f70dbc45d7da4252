#include "interrupt.h"

#include <csignal>

namespace mdfi::app {

namespace {

volatile std::sig_atomic_t g_signal = 0;

void on_signal(int sig) {
  g_signal = sig;
  std::signal(sig, SIG_DFL);  // async-signal-safe; the next one ends the process
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // writes in progress complete instead of failing with EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return int(g_signal); }

}  // namespace mdfi::app
