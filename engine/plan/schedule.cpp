// The schedule's accounting: what a layer holds under each way of running it (weights, blocks,
// workspaces), shared by the band programs, the search and the executors. The rest of the
// planner is split by job: schedule_bands.cpp (band programs, plan_schedule), schedule_cost.cpp
// (the cost model), schedule_search.cpp (choose_schedule), schedule_print.cpp.
#include "schedule.h"

#include <algorithm>

#include "kernels/conv_direct.h"
#include "kernels/sgemm.h"
#include "layers/winograd_rows.h"

namespace mdfi {

bool Schedule::is_default() const {
  if (!groups.empty()) return false;
  for (int b : block)
    if (b) return false;
  for (SchedAlgo a : algo)
    if (a != SchedAlgo::kGemm) return false;
  return true;
}

const BandGroup* Schedule::group_of(int layer) const {
  for (const BandGroup& g : groups)
    if (layer >= g.first && layer <= g.last) return &g;
  return nullptr;
}

size_t blocked_weight_bytes(const SchedNode& node, int block) {
  if (!node.block_units || block <= 0 || block >= node.default_block) return node.plan.weight_bytes;
  const int m = node.block_multiple;
  const size_t rounded = size_t((block + m - 1) / m) * size_t(m);
  return node.block_fixed_bytes + rounded * node.block_unit_bytes;
}

void layer_bytes(const SchedNode& node, SchedAlgo algo, int block, size_t* weight_bytes, size_t* workspace_bytes) {
  if (algo == SchedAlgo::kWinogradInput && node.wino_tile) {
    *weight_bytes = node.wino_input_weight_bytes;
    *workspace_bytes = node.wino_input_workspace_bytes;
  } else if (algo == SchedAlgo::kWinogradWeights && node.wino_tile) {
    const int m = node.block_multiple, f = block > 0 && block < node.block_units ? block : node.block_units;
    *weight_bytes = node.wino_fixed_bytes + size_t((f + m - 1) / m) * size_t(m) * node.wino_unit_bytes;
    *workspace_bytes = node.wino_weights_workspace_bytes;
  } else if (block && node.band == SchedNode::Band::kConv) {  // conv_rows: chunked columns
    *weight_bytes = blocked_weight_bytes(node, block);
    *workspace_bytes = conv_workspace_bytes(node, node.out_h * node.out_w);
  } else {
    *weight_bytes = block ? blocked_weight_bytes(node, block) : node.plan.weight_bytes;
    *workspace_bytes = node.plan.workspace_bytes;
  }
}

int gemm_chunk_columns(int K, int N, int threads) {
  const int nr = kernels::active_kernel().nr;
  const int per_col = std::max(1, std::min(K, kernels::kKC)) * int(sizeof(float));
  const int per_thread = std::max(nr, int(kChunkBytes) / per_col / nr * nr);
  const int most = std::max(4 * nr, per_thread * std::max(1, threads));
  if (N <= most) return std::max(1, N);
  // Chunks of equal whole panels (169 columns: 96 + 73, not 128 + 41).
  const int chunks = (N + most - 1) / most, even = (N + chunks - 1) / chunks;
  return std::min(most, (even + nr - 1) / nr * nr);
}

size_t conv_workspace_bytes(const SchedNode& node, int columns) {
  if (node.band != SchedNode::Band::kConv || columns <= 0 || node.direct_whole) return 0;
  return kernels::sgemm_workspace_floats(node.gemm_k, gemm_chunk_columns(node.gemm_k, columns, kernels::planned_threads()),
                                         kernels::planned_threads()) *
         sizeof(float);
}

size_t band_conv_workspace_bytes(const SchedNode& node, int rows) {
  size_t most = 0;
  for (int r = 1; r <= rows; ++r) most = std::max(most, conv_workspace_bytes(node, r * node.out_w));
  return most;
}

int scheduled_block(const ExecOptions* exec, int layer) {
  if (!exec || !exec->schedule || layer < 0 || size_t(layer) >= exec->schedule->block.size()) return 0;
  return exec->schedule->block[size_t(layer)];
}

}  // namespace mdfi
