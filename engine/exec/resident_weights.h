// Prepared weights kept across the images of a batch (--keep-weights on the CPU): the folded
// and packed conv weights and the connected matrices are made once, on the first image, and
// reused, so later images read nothing from the weights file. An explicit choice: memory grows
// by the whole model (prepared form), which --max-mem checks before the run
// (kept_weights_floats below). The buffers belong to this object's own tracker, so they
// outlive every image's tracker, and its peak is reported beside the per-image heap.
#pragma once

#include <map>
#include <vector>

#include "memory.h"
#include "network.h"

namespace mdfi {

class ResidentWeights {
 public:
  MemoryTracker& tracker() { return tracker_; }
  const MemoryTracker& tracker() const { return tracker_; }
  // The buffers a layer stored, or nullptr on its first run.
  const std::vector<Buffer>* find(int layer) const;
  void store(int layer, std::vector<Buffer> buffers);

 private:
  MemoryTracker tracker_;  // declared first: destroyed after the buffers below
  std::map<int, std::vector<Buffer>> kept_;
};

// What a whole network keeps resident, in floats (Layer::kept_param_floats summed).
size_t kept_weights_floats(const Network& net);

}  // namespace mdfi
