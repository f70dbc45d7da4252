// How a run fits a memory budget (issue 19): the Schedule says, per layer, how many output
// channels of its weights are read, packed and applied at once (a block), and which runs of
// consecutive layers execute together over horizontal bands of their last layer's output, so
// that only a window of rows of each intermediate tensor is ever alive.
//
// Bands stream top to bottom with line buffers: each intermediate layer keeps the rows its
// consumers still need (their receptive-field halo) and computes only rows it has not computed
// before, so no row is computed twice (zero extra FLOPs; the cost is smaller GEMMs and weights
// re-read once per band). Every output value is computed by the same kernel with the same
// accumulation order as layer-at-a-time, so the results are bit-identical.
//
// choose_schedule is a pure function of per-layer figures (SchedNode), tested on its own: it
// returns the cheapest schedule (by a simple cost model) whose predicted peak fits the budget,
// or refuses with the smallest budget any schedule it knows would fit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "kernels/winograd.h"
#include "plan.h"

namespace mdfi {

class Network;

struct BandGroup {
  int first = 0, last = 0;  // layers [first, last]; only `last`'s output leaves the group
  int band_rows = 0;        // rows of `last`'s output per band
  // The group's weights read and packed once and held for all its bands (whole layers, no
  // blocks), instead of read again for every step.
  bool resident = false;
  // Without `resident`: these layers' weights alone are held so (the others are read per step).
  std::vector<int> held;
  bool holds(int layer) const {
    return resident || std::find(held.begin(), held.end(), layer) != held.end();
  }
};

// How a layer outside band groups runs its convolution under a schedule: the GEMM path (whole
// weights or blocks), or the Winograd tile the default schedule gives it, by either of Winograd's
// ways (kernels/winograd.h). Both ways of one tile give the same bits (they share the per-tile
// kernels and accumulation order), so a layer run by Winograd here is bit-identical to the
// default schedule's run of it, given the same input.
// Inside a band group any value but kGemm runs the layer by Winograd in whole tile rows per step
// (layers/winograd_rows.h): with its transformed weights held when the group holds the layer,
// else its filters streamed through each step's tiles (the whole-input way).
enum class SchedAlgo : unsigned char {
  kGemm = 0,
  kWinogradInput,    // the whole input transformed, weights streamed a filter panel per thread
  kWinogradWeights,  // transformed weights in blocks of `block` filters (0: all), input transformed per block
};

struct Schedule {
  std::vector<int> block;  // per layer: output channels per weight block; 0 = the layer's default
  std::vector<SchedAlgo> algo;  // per layer (empty or shorter: kGemm)
  // Per layer outside band groups, with a Winograd algo: run it by its smaller tile
  // (SchedNode::small_tile) instead of the default's (empty or shorter: the default's).
  std::vector<unsigned char> small;
  std::vector<BandGroup> groups;
  bool is_default() const;
  SchedAlgo algo_of(int layer) const {
    return layer >= 0 && size_t(layer) < algo.size() ? algo[size_t(layer)] : SchedAlgo::kGemm;
  }
  bool small_of(int layer) const { return layer >= 0 && size_t(layer) < small.size() && small[size_t(layer)]; }
  // The group that `layer` belongs to, or nullptr.
  const BandGroup* group_of(int layer) const;
};

// What the scheduler needs to know about one layer.
struct SchedNode {
  PlanNode plan;  // the default schedule's figures
  // Weight blocks: 0 units = this layer cannot be blocked.
  int block_units = 0;           // output channels (conv filters, connected outputs)
  int block_multiple = 1;        // a block is a multiple of this (the SGEMM's row panel)
  int default_block = 0;         // channels per block in the default schedule
  size_t block_fixed_bytes = 0;  // held whatever the block
  size_t block_unit_bytes = 0;   // per output channel in the block
  // Bands: how output rows [y0, y1) map to input rows, [y0*s - pad_top, (y1-1)*s - pad_top + k).
  // kDepthwise: a depthwise conv (direct kernel, whole weights); kAlias: dropout (its source's rows).
  enum class Band { kNone, kConv, kDepthwise, kPool, kAdd, kConcat, kAlias };
  Band band = Band::kNone;
  int out_h = 0, out_w = 0;
  size_t row_bytes = 0;  // one output row over all channels
  int k = 1, s = 1, pad_top = 0;
  int gemm_k = 0;        // conv: K of its GEMM (workspace depends on the band's columns)
  // conv: the lanes of the direct kernel its weight blocks may take (kernels/conv_direct.h; 0:
  // none), which reads the input in place rather than packing the im2col matrix per block.
  int direct_lanes = 0;
  // conv: runs by that direct kernel whatever its blocks and rows, with no workspace
  // (ConvLayer::direct_whole: it pays even for the layer's filters in one block).
  bool direct_whole = false;
  double flops = 0;
  bool output_head = false;  // plan.keep_to_end
  // The default schedule runs this layer by Winograd: a schedule, which runs it by GEMM, pays
  // the difference (the cost model's winograd_gain).
  bool winograd_default = false;
  // The default's Winograd tile (2 or 4; 0: none), which a schedule may keep outside band groups:
  // the bytes each way holds (what ConvLayer::winograd_weight_floats/workspace_floats count).
  int wino_tile = 0;
  int wino_default_tile = 0;  // the default's tile (small_tile's differs)
  size_t wino_input_weight_bytes = 0, wino_input_workspace_bytes = 0;  // kWinogradInput
  size_t wino_fixed_bytes = 0;      // kWinogradWeights: head and raw rows, whatever the block
  size_t wino_unit_bytes = 0;       // kWinogradWeights: transformed weights per filter (panels of kMR)
  size_t wino_weights_workspace_bytes = 0;
  double wino_transform_floats = 0;  // floats of the transformed input (made again for every block)
  kernels::WinogradGeo wino_geo;     // the whole layer's geometry at the default's tile (band steps)
  // The same layer with F(2x2) where the default's tile is F(4x4) (null otherwise): its wino_*
  // figures are F(2x2)'s, which hold 16 floats per tile and channel against 36, so its
  // whole-weights way fits in larger filter blocks where F(4x4)'s does not fit (yolov4-tiny's
  // layer 35 at its smallest budget: by GEMM in blocks, else). Outside band groups only. Its
  // outputs are not the default's bits (as GEMM's are not), but a layer-at-a-time run's with F(2x2).
  std::shared_ptr<const SchedNode> small_tile;
};

// Layer `i`'s figures under `s`: its small_tile's where the schedule takes it, else its own.
inline const SchedNode& scheduled_node(const std::vector<SchedNode>& nodes, const Schedule& s, int i) {
  const SchedNode& n = nodes[size_t(i)];
  return s.small_of(i) && n.small_tile ? *n.small_tile : n;
}

// The per-layer Winograd tiles of `net` as built now (Layer::winograd_tile; 0: GEMM): taken
// before a schedule turns Winograd off, and given to sched_nodes_for.
std::vector<int> winograd_tiles(const Network& net);
std::vector<SchedNode> sched_nodes_for(const Network& net, const std::vector<int>& default_tiles = {});

// The block the run's schedule gives `layer` (0: the layer's default).
struct ExecOptions;
int scheduled_block(const ExecOptions* exec, int layer);

// Bytes of layer `i`'s weights while it runs with `block` channels per block (0 = default).
size_t blocked_weight_bytes(const SchedNode& node, int block);
// Weights and workspace of a layer outside band groups under `algo` and `block` (the plan's figures).
void layer_bytes(const SchedNode& node, SchedAlgo algo, int block, size_t* weight_bytes, size_t* workspace_bytes);
// Gives the layers the schedule runs by Winograd their tile and way (Layer::set_winograd); the
// others keep what they have (GEMM: a schedule is chosen on a network without Winograd).
void apply_schedule_algorithms(Network& net, const std::vector<SchedNode>& nodes, const Schedule& schedule);
// Columns per SGEMM call of a conv under a schedule (conv_rows) on `threads` threads: at most what
// keeps each thread's packed B block near kChunkBytes (never under four micro-kernel panels in
// all), so bands and weight
// blocks hold a small workspace and leave the room to whole weights. Splitting the columns
// changes no output's arithmetic (each sums its K blocks in order, whatever its panel).
constexpr size_t kChunkBytes = size_t(128) << 10;
int gemm_chunk_columns(int K, int N, int threads);
// SGEMM workspace for a conv computing `columns` output pixels (in chunks of gemm_chunk_columns).
size_t conv_workspace_bytes(const SchedNode& node, int columns);
// The most conv_workspace_bytes of any band step of 1 to `rows` output rows. Not the workspace of
// the tallest step: a step just under one chunk takes its columns whole, while a taller step is
// cut into smaller equal chunks (AlexNet's layer 0 on two threads, 1-row bands of layer 3:
// steps of 4 rows, 220 columns, need 262,144 B; the 5-row first step, chunks of 160, 196,608).
size_t band_conv_workspace_bytes(const SchedNode& node, int rows);

// One band step of one layer of a group: compute rows [from, to) after dropping the rows below
// keep (the window then starts at keep).
struct BandStep {
  int layer = 0;
  int keep = 0, from = 0, to = 0;
};
struct BandProgram {
  int band_count = 0;  // bands of the last layer's output
  // Sweeps over the group's layers in order (a band takes one or more: the first several, as
  // its receptive field reaches far into the early layers), each layer's step in each.
  std::vector<std::vector<BandStep>> bands;
  std::vector<int> window_rows;  // per layer of the group (index - first): rows its window holds (last: whole)
  // per layer: most rows computed in one step. A Winograd layer's steps are whole tile rows:
  // they start at multiples of its tile and end at one or at its last row.
  std::vector<int> max_new_rows;
  size_t window_bytes = 0;        // all windows of intermediates, one block
  size_t step_bytes = 0;          // the largest weights + workspace of one layer's step
  size_t step_weight_bytes = 0;   // the weights part of the largest step
};
// with_steps = false: only the sizes (the planner's question), not `bands`.
BandProgram band_program(const std::vector<SchedNode>& nodes, const Schedule& schedule, const BandGroup& g,
                         bool with_steps = true);

// The plan of a schedule: weights at their block sizes, each group's layers folded into its
// last one (which holds the windows and one layer's step at a time).
Plan plan_schedule(size_t input_bytes, const std::vector<SchedNode>& nodes, const Schedule& schedule);

// Layers `first`..`last` may form a group: all bandable, all internal outputs read only inside.
bool valid_group(const std::vector<SchedNode>& nodes, int first, int last);

struct ScheduleChoice {
  Schedule schedule;
  Plan plan;
  double cost_ratio = 1;      // predicted time relative to the default schedule (cost model)
  double extra_flops = 0;     // recomputed FLOPs (0: bands never recompute a row)
  size_t smallest_fit = 0;    // the smallest peak any schedule tried reaches
};

// The cheapest schedule whose need (schedule_need) is at most `budget_bytes`; `budget_bytes` = 0 gives the
// default schedule. kBudget (with the smallest feasible figure in the message and in
// `smallest`) when none fits.
// `beside_arena`: bytes a run holds beside the whole arena (an image's decoder, which works
// while the arena is already allocated): a schedule then also needs its arena size
// (plan_arena) plus that to fit.
Result<ScheduleChoice> choose_schedule(size_t input_bytes, const std::vector<SchedNode>& nodes, size_t budget_bytes,
                                       size_t* smallest = nullptr, size_t beside_arena = 0);
// What a schedule's plan needs of the budget: its peak, or its arena plus `beside_arena`.
size_t schedule_need(const Plan& plan, size_t beside_arena);
// Whether that need is at most `budget_bytes`; the arena is laid out only when the peak plus
// `beside_arena` leaves it a chance (the arena is never below the peak).
bool schedule_fits(const Plan& plan, size_t beside_arena, size_t budget_bytes);

// The cost model's extra time of a schedule over the default's, in FLOP-equivalents.
double schedule_cost(const std::vector<SchedNode>& nodes, const Schedule& s);

// The re-choice pass choose_schedule ends with: every layer outside band groups, the costliest
// first, re-picks the cheapest way (cost model) of running it - whole GEMM weights, GEMM blocks
// of any count, or the default's Winograd tile by either way, its whole-weights way in blocks -
// among those that keep the schedule's need within `budget_bytes`. The budget-driven search sizes
// all blocks to one target and doubles them at most, so layers away from the peak are left with
// more blocks than their room requires. Returns `start` (its vectors sized to `nodes`) when it
// does not fit to begin with. Never raises the cost; every layer's outputs are unchanged (each way
// gives the default schedule's bits for its algorithm).
Schedule rechoose_ways(size_t input_bytes, const std::vector<SchedNode>& nodes, const Schedule& start, size_t budget_bytes,
                       size_t beside_arena = 0);

// "blocks: 12 layers ...; groups: 0-36 in bands of 4 rows" for `mdfi plan`.
std::string describe_schedule(const Schedule& s);

}  // namespace mdfi
