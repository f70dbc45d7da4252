#include "winograd.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu_features.h"
#include "sgemm.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace mdfi::kernels {

namespace {

int used_threads(int threads) { return std::max(1, std::min(threads, planned_threads())); }

int thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

int panel_count(const WinogradGeo& geo, int nr) { return (geo.tiles() + nr - 1) / nr; }
size_t v_panel_floats(const WinogradGeo& geo, int nr) { return size_t(geo.n2()) * geo.channels * nr; }
size_t m_floats(const WinogradGeo& geo, int nr) { return size_t(geo.n2()) * kMR * nr; }

// C = U * V for one plane of one tile panel whose first `cols` tiles are real (the rest padding).
inline void plane_product(const KernelInfo& kern, int C, const float* u, const float* v, float* m, int nr, int cols) {
  if (kern.narrow && cols < nr) kern.narrow(C, u, v, m, nr, cols);
  else kern.fn(C, u, v, m, nr, 1);
}

// One tile panel times one filter panel: n2 micro-kernel calls into `mbuf`, then the output pass.
void panel_product(const WinogradGeo& geo, const WinogradOps& ops, const KernelInfo& kern, const float* vpanel,
                   const float* u_panel, size_t plane_stride, int f_first, int t_first, const float* bias,
                   Activation act, float* out, float* mbuf) {
  const int nr = kern.nr, C = geo.channels, cols = std::min(nr, geo.tiles() - t_first);
  for (int p = 0; p < geo.n2(); ++p)
    plane_product(kern, C, u_panel + p * plane_stride, vpanel + size_t(p) * C * nr, mbuf + size_t(p) * kMR * nr, nr,
                  cols);
  ops.output(geo, mbuf, nr, f_first, t_first, bias, act, out);
}

}  // namespace


// The widest kernel even for few tiles on AVX-512: there the 8-wide AVX2 kernel runs at half the
// rate, which costs more than the padding tiles of a 32-wide panel (a 13x13 map: 49 tiles in 64).
// On AVX2 the 24-wide tile, except where its panels would hold 20% more padding tiles than 8-wide
// ones (49 tiles of a 13x13 F(2x2) or 26x26 F(4x4) map: 72 against 56): there the 8-wide kernel
// was the faster (yolov3-tiny's 26x26 and 13x13 layers, 1 thread: 27.8 against 30.1 ms CPU time),
// on larger maps the 24-wide one (its 208x208 layer: 2.0 against 2.7 ms).
const KernelInfo& winograd_kernel(const WinogradGeo& geo) {
  const KernelInfo& active = active_kernel();
  if (std::strcmp(active.name, "avx2") == 0) {
    static const KernelInfo* narrow = find_kernel("avx2-8");
    const int t = geo.tiles(), wide = (t + active.nr - 1) / active.nr * active.nr;
    if (narrow && wide * 5 > (t + narrow->nr - 1) / narrow->nr * narrow->nr * 6) return *narrow;
  }
  return active;
}

size_t winograd_u_floats(const WinogradGeo& geo, int filters) {
  return size_t(geo.n2()) * packed_a_floats(filters, geo.channels);
}

size_t winograd_panel_workspace_floats(const WinogradGeo& geo, int threads) {
  const int nr = winograd_kernel(geo).nr;
  return size_t(used_threads(threads)) * (v_panel_floats(geo, nr) + m_floats(geo, nr));
}

// Product tiles one thread of the whole-input way holds: group x tile panels of a pass.
static size_t pass_products(const WinogradGeo& geo, int nr) {
  const int group = std::max(1, geo.group), tile_panels = geo.group > 1 ? std::min(kWinogradTilePanels, panel_count(geo, nr)) : 1;
  return size_t(group) * size_t(tile_panels) * m_floats(geo, nr);
}

size_t winograd_input_workspace_floats(const WinogradGeo& geo, int threads) {
  const int nr = winograd_kernel(geo).nr;
  return size_t(panel_count(geo, nr)) * v_panel_floats(geo, nr) + size_t(used_threads(threads)) * pass_products(geo, nr);
}

size_t winograd_stream_weight_floats(const WinogradGeo& geo, int threads) {
  return size_t(used_threads(threads)) * size_t(std::max(1, geo.group)) * (size_t(geo.n2()) + 9) * kMR * geo.channels;
}

void winograd_transform_weights(const WinogradGeo& geo, int rows, const float* raw, const float* scale, float* u_block,
                                size_t plane_stride, int panel, const WinogradOps* ops) {
  (ops ? *ops : winograd_ops()).weights(geo, rows, raw, scale, u_block, plane_stride, panel);
}

void winograd_conv_whole_weights(const WinogradGeo& geo, const float* in, const float* u, const float* bias,
                                 Activation act, float* out, int threads, float* workspace, const WinogradOps* o) {
  const WinogradOps& ops = o ? *o : winograd_ops();
  const KernelInfo& kern = winograd_kernel(geo);
  const int nr = kern.nr, panels = panel_count(geo, nr), f_panels = (geo.filters + kMR - 1) / kMR;
  const size_t per_thread = v_panel_floats(geo, nr) + m_floats(geo, nr);
  const size_t plane_stride = size_t(f_panels) * kMR * geo.channels;
  // Consecutive tile panels per thread (static), not handed out one by one: thread t then
  // transforms the map's t-th band of rows, the band its core wrote when the layer before split
  // the map by columns (GEMM) or tile panels (this), and writes the band the next layer gives it
  // back. Dynamic, about half of each thread's input came from the other core's cache: on the VM,
  // yolov4-tiny kept at 2 threads ran its 32-channel 104x104 layers 4 and 5 a third faster static.
#pragma omp parallel for num_threads(used_threads(threads)) schedule(static)
  for (int panel = 0; panel < panels; ++panel) {
    float* v = workspace + per_thread * size_t(thread_id());
    float* mbuf = v + v_panel_floats(geo, nr);
    ops.input(geo, in, panel, nr, v);
    for (int q = 0; q < f_panels; ++q)
      panel_product(geo, ops, kern, v, u + size_t(q) * kMR * geo.channels, plane_stride, q * kMR, panel * nr, bias,
                    act, out, mbuf);
  }
}

void winograd_transform_input(const WinogradGeo& geo, const float* in, float* workspace, int threads,
                              const WinogradOps* o) {
  const WinogradOps& ops = o ? *o : winograd_ops();
  const int nr = winograd_kernel(geo).nr, panels = panel_count(geo, nr);
  // Static for the reason winograd_conv_whole_weights gives: each thread reads its own band.
#pragma omp parallel for num_threads(used_threads(threads)) schedule(static)
  for (int panel = 0; panel < panels; ++panel)
    ops.input(geo, in, panel, nr, workspace + size_t(panel) * v_panel_floats(geo, nr));
}

namespace {

// One pass of the whole-input way: filter panels [q0, q0 + qn), whose U panels are `u_at(qi)` with
// planes `plane_stride` apart, times every tile panel of V, kWinogradTilePanels tile panels at a
// time (group 1: one). Plane by plane, each V panel plane is multiplied by all the pass's filter
// panels while it is in cache: V (megabytes at 26x26 and 13x13 maps) is read once per pass
// instead of once per filter panel. Each product tile is the same kernel call over all C as one
// filter panel at a time would make, and goes through the same output pass: the same bits.
template <typename UAt>
void multiply_pass(const WinogradGeo& geo, const WinogradOps& ops, const KernelInfo& kern, const float* v, UAt u_at,
                   size_t plane_stride, int q0, int qn, const float* bias, Activation act, float* out, float* mbuf) {
  const int nr = kern.nr, C = geo.channels, n2 = geo.n2(), panels = panel_count(geo, nr);
  const int chunk = geo.group > 1 ? kWinogradTilePanels : 1;
  const size_t mf = m_floats(geo, nr), vf = v_panel_floats(geo, nr);
  for (int t0 = 0; t0 < panels; t0 += chunk) {
    const int tn = std::min(chunk, panels - t0);
    for (int p = 0; p < n2; ++p)
      for (int ti = 0; ti < tn; ++ti) {
        const float* vp = v + size_t(t0 + ti) * vf + size_t(p) * C * nr;
        const int cols = std::min(nr, geo.tiles() - (t0 + ti) * nr);
        for (int qi = 0; qi < qn; ++qi)
          plane_product(kern, C, u_at(qi) + p * plane_stride, vp, mbuf + size_t(qi * tn + ti) * mf + size_t(p) * kMR * nr,
                        nr, cols);
      }
    for (int qi = 0; qi < qn; ++qi)
      for (int ti = 0; ti < tn; ++ti)
        ops.output(geo, mbuf + size_t(qi * tn + ti) * mf, nr, (q0 + qi) * kMR, (t0 + ti) * nr, bias, act, out);
  }
}

}  // namespace

void winograd_multiply_all(const WinogradGeo& geo, const float* u, const float* bias, Activation act, float* out,
                           int threads, float* workspace, const WinogradOps* o) {
  const WinogradOps& ops = o ? *o : winograd_ops();
  const KernelInfo& kern = winograd_kernel(geo);
  const int nr = kern.nr, panels = panel_count(geo, nr), f_panels = (geo.filters + kMR - 1) / kMR;
  const int group = std::max(1, geo.group), passes = (f_panels + group - 1) / group;
  const size_t plane_stride = size_t(f_panels) * kMR * geo.channels;
  float* scratch = workspace + size_t(panels) * v_panel_floats(geo, nr);
#pragma omp parallel for num_threads(used_threads(threads)) schedule(dynamic)
  for (int pass = 0; pass < passes; ++pass) {
    float* mbuf = scratch + pass_products(geo, nr) * size_t(thread_id());
    const int q0 = pass * group, qn = std::min(group, f_panels - q0);
    multiply_pass(geo, ops, kern, workspace, [&](int qi) { return u + size_t(q0 + qi) * kMR * geo.channels; },
                  plane_stride, q0, qn, bias, act, out, mbuf);
  }
}

void winograd_multiply_streamed(const WinogradGeo& geo, WinogradPanelSource& source, const float* bias, Activation act,
                                float* out, int threads, float* workspace, float* weight_scratch,
                                const WinogradOps* o) {
  // geo.group filter panels per pass, as multiply_all: each thread makes a pass's panels of U one
  // after another in its own scratch (their raw weights read at once), then goes over V once for
  // all of them, so V (megabytes: more than a core's L2 cache at 26x26 and 13x13) is read once
  // per pass instead of once per filter panel. The planner sizes the group (conv_choice.cpp).
  const WinogradOps& ops = o ? *o : winograd_ops();
  const KernelInfo& kern = winograd_kernel(geo);
  const int nr = kern.nr, panels = panel_count(geo, nr), f_panels = (geo.filters + kMR - 1) / kMR;
  const int group = std::max(1, geo.group), passes = (f_panels + group - 1) / group;
  const size_t u_floats = size_t(geo.n2()) * kMR * geo.channels;
  const size_t per_thread = size_t(group) * (u_floats + size_t(9) * kMR * geo.channels);
  float* scratch = workspace + size_t(panels) * v_panel_floats(geo, nr);
#pragma omp parallel for num_threads(used_threads(threads)) schedule(dynamic)
  for (int pass = 0; pass < passes; ++pass) {
    const size_t tid = size_t(thread_id());
    float* u = weight_scratch + per_thread * tid;
    const int q0 = pass * group, qn = std::min(group, f_panels - q0);
    if (!source.panels(q0, qn, u, u_floats, u + size_t(group) * u_floats)) continue;
    multiply_pass(geo, ops, kern, workspace, [&](int qi) { return u + size_t(qi) * u_floats; }, size_t(kMR) * geo.channels,
                  q0, qn, bias, act, out, scratch + pass_products(geo, nr) * tid);
  }
}

static std::vector<WinogradOps> available_ops() {
  std::vector<WinogradOps> v;
#if defined(__x86_64__) || defined(__i386__)
  if (cpu_has_avx512f()) v.push_back(winograd_ops_avx512());
  if (cpu_has_avx2_fma()) v.push_back(winograd_ops_avx2());
#endif
#if defined(__aarch64__)
  v.push_back(winograd_ops_neon());
#endif
  v.push_back(winograd_ops_generic());
  return v;
}

const WinogradOps* find_winograd_ops(const char* name) {
  static const std::vector<WinogradOps> ops = available_ops();
  for (const WinogradOps& o : ops)
    if (std::strcmp(o.name, name) == 0) return &o;
  return nullptr;
}

const WinogradOps& winograd_ops() {
  static const WinogradOps best = available_ops().front();
  return best;
}

}  // namespace mdfi::kernels
