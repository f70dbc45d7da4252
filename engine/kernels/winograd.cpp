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

// One tile panel times one filter panel: n2 micro-kernel calls into `mbuf`, then the output pass.
void panel_product(const WinogradGeo& geo, const WinogradOps& ops, const KernelInfo& kern, const float* vpanel,
                   const float* u_panel, size_t plane_stride, int f_first, int t_first, const float* bias,
                   Activation act, float* out, float* mbuf) {
  const int nr = kern.nr, C = geo.channels;
  for (int p = 0; p < geo.n2(); ++p)
    kern.fn(C, u_panel + p * plane_stride, vpanel + size_t(p) * C * nr, mbuf + size_t(p) * kMR * nr, nr, 1);
  ops.output(geo, mbuf, nr, f_first, t_first, bias, act, out);
}

}  // namespace


// The widest kernel even for few tiles: on AVX-512 the 8-wide AVX2 kernel runs at half the rate,
// which costs more than the padding tiles of a 32-wide panel (a 13x13 map: 49 tiles in 64).
const KernelInfo& winograd_kernel(const WinogradGeo&) { return active_kernel(); }

size_t winograd_u_floats(const WinogradGeo& geo, int filters) {
  return size_t(geo.n2()) * packed_a_floats(filters, geo.channels);
}

size_t winograd_panel_workspace_floats(const WinogradGeo& geo, int threads) {
  const int nr = winograd_kernel(geo).nr;
  return size_t(used_threads(threads)) * (v_panel_floats(geo, nr) + m_floats(geo, nr));
}

size_t winograd_input_workspace_floats(const WinogradGeo& geo, int threads) {
  const int nr = winograd_kernel(geo).nr;
  return size_t(panel_count(geo, nr)) * v_panel_floats(geo, nr) + size_t(used_threads(threads)) * m_floats(geo, nr);
}

size_t winograd_stream_weight_floats(const WinogradGeo& geo, int threads) {
  return size_t(used_threads(threads)) * (size_t(geo.n2()) + 9) * kMR * geo.channels;
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
#pragma omp parallel for num_threads(used_threads(threads)) schedule(dynamic)
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
#pragma omp parallel for num_threads(used_threads(threads)) schedule(dynamic)
  for (int panel = 0; panel < panels; ++panel)
    ops.input(geo, in, panel, nr, workspace + size_t(panel) * v_panel_floats(geo, nr));
}

void winograd_multiply_all(const WinogradGeo& geo, const float* u, const float* bias, Activation act, float* out,
                           int threads, float* workspace, const WinogradOps* o) {
  const WinogradOps& ops = o ? *o : winograd_ops();
  const KernelInfo& kern = winograd_kernel(geo);
  const int nr = kern.nr, panels = panel_count(geo, nr), f_panels = (geo.filters + kMR - 1) / kMR;
  const size_t plane_stride = size_t(f_panels) * kMR * geo.channels;
  float* scratch = workspace + size_t(panels) * v_panel_floats(geo, nr);
#pragma omp parallel for num_threads(used_threads(threads)) schedule(dynamic)
  for (int q = 0; q < f_panels; ++q) {
    float* mbuf = scratch + m_floats(geo, nr) * size_t(thread_id());
    for (int panel = 0; panel < panels; ++panel)
      panel_product(geo, ops, kern, workspace + size_t(panel) * v_panel_floats(geo, nr),
                    u + size_t(q) * kMR * geo.channels, plane_stride, q * kMR, panel * nr, bias, act, out, mbuf);
  }
}

void winograd_multiply_streamed(const WinogradGeo& geo, WinogradPanelSource& source, const float* bias, Activation act,
                                float* out, int threads, float* workspace, float* weight_scratch,
                                const WinogradOps* o) {
  const WinogradOps& ops = o ? *o : winograd_ops();
  const KernelInfo& kern = winograd_kernel(geo);
  const int nr = kern.nr, panels = panel_count(geo, nr), f_panels = (geo.filters + kMR - 1) / kMR;
  const size_t u_floats = size_t(geo.n2()) * kMR * geo.channels;
  const size_t per_thread = u_floats + size_t(9) * kMR * geo.channels;
  float* scratch = workspace + size_t(panels) * v_panel_floats(geo, nr);
#pragma omp parallel for num_threads(used_threads(threads)) schedule(dynamic)
  for (int q = 0; q < f_panels; ++q) {
    const size_t tid = size_t(thread_id());
    float* u = weight_scratch + per_thread * tid;
    if (!source.panel(q, u, u + u_floats)) continue;
    float* mbuf = scratch + m_floats(geo, nr) * tid;
    for (int panel = 0; panel < panels; ++panel)
      panel_product(geo, ops, kern, workspace + size_t(panel) * v_panel_floats(geo, nr), u,
                    size_t(kMR) * geo.channels, q * kMR, panel * nr, bias, act, out, mbuf);
  }
}

static std::vector<WinogradOps> available_ops() {
  std::vector<WinogradOps> v;
#if defined(__x86_64__) || defined(__i386__)
  if (cpu_has_avx512f()) v.push_back(winograd_ops_avx512());
  if (cpu_has_avx2_fma()) v.push_back(winograd_ops_avx2());
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
