// mdfi's documented exit codes (README, --help).
#pragma once

#include "status.h"

namespace mdfi::app {

enum ExitCode {
  kExitOk = 0,          // everything succeeded
  kExitFailed = 1,      // the run could not start or failed as a whole (model, weights, backend, output)
  kExitUsage = 2,       // bad command line
  kExitSomeInputs = 3,  // the run finished but at least one input image failed
  kExitBudget = 4,      // the predicted peak memory is over --max-mem
};

inline int exit_code_for(const Status& st) {
  if (st.ok()) return kExitOk;
  switch (st.kind()) {
    case ErrorKind::kUsage: return kExitUsage;
    case ErrorKind::kBudget: return kExitBudget;
    default: return kExitFailed;
  }
}

}  // namespace mdfi::app
