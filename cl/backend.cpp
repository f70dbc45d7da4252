// The OpenCL executor: follows the engine's Plan exactly as engine/executor.cpp does (allocate
// each output, pull the layer's parameters, compute, free what the plan frees), but on the
// device. Activations never leave it between layers; each convolution's parameter range is read
// from the weights file into a pinned staging buffer, copied over, turned into the SGEMM's
// layout by a kernel into a one-layer weights arena that the next convolution overwrites (or
// into buffers of its own, kept across runs, with keep_weights). The host reads the next
// layers' weights while the device still works on earlier ones: three staging buffers rotate,
// each guarded by the event of its last copy. Layers without a device kernel run through their
// CPU reference on host copies of their inputs.
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "backend.h"
#include "layers.h"
#include "weights.h"

namespace mdfi::cl {

bool compiled_in() { return true; }

Result<std::vector<DeviceSummary>> list_devices() {
  auto all = enumerate_devices();
  if (!all.ok()) return all.status();
  std::vector<DeviceSummary> out;
  for (const DeviceHandle& h : *all) out.push_back(h.info);
  return out;
}

namespace {

// Host memory the driver can DMA from directly, mapped once for the backend's lifetime.
class PinnedStaging {
 public:
  ~PinnedStaging() { reset(); }
  Status ensure(Runtime& rt, size_t bytes) {
    if (bytes <= bytes_) return Status::Ok();
    reset();
    rt_ = &rt;
    cl_int err = CL_SUCCESS;
    buf_ = clCreateBuffer(rt.context(), CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
    if (err != CL_SUCCESS) return cl_error(err, "allocating a pinned staging buffer");
    host_ = clEnqueueMapBuffer(rt.queue(), buf_, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) return cl_error(err, "mapping the staging buffer");
    bytes_ = bytes;
    return Status::Ok();
  }
  // Blocks until the device has finished copying out of the buffer.
  Status wait() {
    if (!last_) return Status::Ok();
    const cl_int err = clWaitForEvents(1, &last_);
    clReleaseEvent(last_);
    last_ = nullptr;
    MDFI_CL_CHECK(err, "waiting for a weights upload");
    return Status::Ok();
  }
  Status upload(Runtime& rt, const DevBuf& dst, size_t bytes) {
    MDFI_CL_CHECK(clEnqueueWriteBuffer(rt.queue(), dst.get(), CL_FALSE, 0, bytes, host_, 0, nullptr, &last_),
                  "uploading weights");
    return Status::Ok();
  }
  float* data() { return static_cast<float*>(host_); }
  size_t bytes() const { return bytes_; }
  void reset() {
    if (last_) clWaitForEvents(1, &last_), clReleaseEvent(last_);
    last_ = nullptr;
    if (buf_) {
      if (host_) clEnqueueUnmapMemObject(rt_->queue(), buf_, host_, 0, nullptr, nullptr), clFinish(rt_->queue());
      clReleaseMemObject(buf_);
    }
    buf_ = nullptr;
    host_ = nullptr;
    bytes_ = 0;
  }

 private:
  Runtime* rt_ = nullptr;
  cl_mem buf_ = nullptr;
  void* host_ = nullptr;
  size_t bytes_ = 0;
  cl_event last_ = nullptr;
};

}  // namespace

struct Backend::Impl {
  BackendOptions opts;
  std::unique_ptr<Runtime> rt;
  std::unique_ptr<GemmTuner> tuner;
  std::unique_ptr<DeviceLayers> layers;
  static constexpr int kStaging = 3;   // how many layers the file reads may run ahead
  PinnedStaging staging[kStaging];
  int next_staging = 0;
  DevBuf raw_arena;                      // one layer's parameters as the file stores them
  std::string readers_path;              // the file `readers` are open on
  std::vector<WeightsFile> readers;      // extra handles for parallel reads

  int read_threads() const {
    if (opts.read_threads > 0) return opts.read_threads;
    return int(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  }

  // One layer's range through `threads` handles at once: the file sits in the page cache, and
  // one thread copying (and checking) 250 MB is what bounds a streamed inference.
  Status read_params(WeightsFile& weights, const Layer& layer, size_t begin, float* dst, size_t count) {
    const int want = read_threads();
    const size_t chunk = std::max<size_t>(size_t(1) << 18, (count + size_t(want) - 1) / size_t(want));
    const int parts = int((count + chunk - 1) / chunk);
    if (parts <= 1) return LayerParams(weights, layer, begin).read(0, dst, count);
    if (readers_path != weights.path() || int(readers.size()) < parts) {
      readers.clear();
      for (int t = 0; t < want; ++t) {
        auto f = WeightsFile::open(weights.path());
        if (!f.ok()) return f.status();
        readers.push_back(std::move(*f));
      }
      readers_path = weights.path();
    }
    std::vector<Status> st(static_cast<size_t>(parts));
    std::vector<std::thread> pool;
    for (int t = 0; t < parts; ++t)
      pool.emplace_back([&, t] {
        const size_t off = size_t(t) * chunk, n = std::min(chunk, count - off);
        st[size_t(t)] = LayerParams(readers[size_t(t)], layer, begin).read(off, dst + off, n);
      });
    for (auto& th : pool) th.join();
    for (const Status& s : st) MDFI_RETURN_IF_ERROR(s);
    return Status::Ok();
  }
  std::string resident_key;                // which network the kept weights belong to
  std::map<int, ConvWeights> resident;     // layer index -> prepared weights (keep_weights)

  // Reads `count` floats of the layer's parameters into the next staging buffer and queues
  // their copy into the raw arena. Device buffers are reused rather than allocated per layer:
  // freeing device memory can make the driver wait for the queue, which would stop the file
  // reads from overlapping the device's work.
  Status stream_params(const std::function<Status(float*)>& read, size_t count) {
    PinnedStaging& st = staging[next_staging];
    next_staging = (next_staging + 1) % kStaging;
    MDFI_RETURN_IF_ERROR(st.wait());
    MDFI_RETURN_IF_ERROR(st.ensure(*rt, count * 4));
    MDFI_RETURN_IF_ERROR(read(st.data()));
    if (raw_arena.bytes() < count * 4) {
      raw_arena.reset();
      auto raw = rt->alloc(count * 4, "raw layer parameters");
      if (!raw.ok()) return raw.status();
      raw_arena = std::move(*raw);
    }
    return st.upload(*rt, raw_arena, count * 4);
  }

  Result<ConvWeights> conv_weights(const Layer& layer, ParamSource& params, bool own) {
    const size_t n = layer.param_floats();
    MDFI_RETURN_IF_ERROR(stream_params([&](float* dst) { return params.read(0, dst, n); }, n));
    return layers->prepare_conv(layer, raw_arena, own);
  }
  Result<ConvWeights> conv_weights(const Layer& layer, WeightsFile& weights, size_t begin, bool own) {
    const size_t n = layer.param_floats();
    MDFI_RETURN_IF_ERROR(stream_params([&](float* dst) { return read_params(weights, layer, begin, dst, n); }, n));
    return layers->prepare_conv(layer, raw_arena, own);
  }

  // A layer with no device kernel: host copies of its inputs through the CPU reference.
  Status run_on_host(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                     ParamSource& params, MemoryTracker& mem) {
    std::vector<Buffer> host_in;
    LayerIO io;
    for (size_t s = 0; s < inputs.size(); ++s) {
      auto b = Buffer::make(mem, layer.source_shapes.empty() ? layer.in.count() : layer.source_shapes[s].count(),
                            MemCategory::kActivations, "a host copy of a layer input");
      if (!b.ok()) return b.status();
      MDFI_RETURN_IF_ERROR(rt->read(*inputs[s], b->data(), b->bytes()));
      io.inputs.push_back(b->data());
      host_in.push_back(std::move(*b));
    }
    auto o = Buffer::make(mem, layer.out.count(), MemCategory::kActivations, "a host layer output");
    if (!o.ok()) return o.status();
    io.output = o->data();
    io.params = &params;
    io.mem = &mem;
    MDFI_RETURN_IF_ERROR(layer.forward(io));
    return rt->write(out, o->data(), o->bytes());
  }
};

Backend::Backend(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Backend::~Backend() {
  if (impl_ && impl_->rt) clFinish(impl_->rt->queue());
}

Result<std::unique_ptr<Backend>> Backend::open(const BackendOptions& opts) {
  auto impl = std::make_unique<Impl>();
  impl->opts = opts;
  auto rt = Runtime::open(opts.device);
  if (!rt.ok()) return rt.status();
  impl->rt = std::move(*rt);
  impl->tuner = std::make_unique<GemmTuner>(*impl->rt, opts.autotune && impl->rt->device().is_gpu);
  impl->layers = std::make_unique<DeviceLayers>(*impl->rt, *impl->tuner);
  return std::unique_ptr<Backend>(new Backend(std::move(impl)));
}

const DeviceSummary& Backend::device() const { return impl_->rt->device().info; }

DeviceMemStats Backend::device_memory() const { return impl_->rt->memory().stats(); }

Result<RunOutput> Backend::run(const Network& net, const Plan& plan, WeightsFile& weights, Buffer input,
                               MemoryTracker& mem, const RunHooks& hooks) {
  Impl& im = *impl_;
  Runtime& rt = *im.rt;
  const int n = int(net.layers.size());
  if (input.size() != net.input_shape().count())
    return Result<RunOutput>(ErrorKind::kInternal, "input tensor does not match the network input");
  const std::string key = net.cfg_path + "#" + std::to_string(n) + "#" + weights.path();
  if (key != im.resident_key || !im.opts.keep_weights) {
    im.resident.clear();
    im.resident_key = key;
  }
  const std::vector<size_t> offsets = layer_param_offsets(net);
  rt.memory().set_phase(-1);
  rt.memory().restart_peak();
  std::vector<DevBuf> bufs(size_t(n) + 1);  // bufs[id + 1]; id -1 is the network input
  {
    auto in = rt.alloc(input.bytes(), "the network input");
    if (!in.ok()) return in.status();
    MDFI_RETURN_IF_ERROR(rt.write(*in, input.data(), input.bytes()));
    bufs[0] = std::move(*in);
    input.reset();
  }
  size_t live = bufs[0].bytes();

  for (int i = 0; i < n; ++i) {
    const Layer& layer = *net.layers[i];
    const LayerPlan& lp = plan.layers[i];
    const auto t0 = std::chrono::steady_clock::now();
    mem.set_phase(i);
    rt.memory().set_phase(i);
    const std::string where = "layer " + std::to_string(i) + " [" + layer.kind() + "]: ";
    if (lp.buffer == i) {
      auto out = rt.alloc(layer.out.bytes(), "a layer output");
      if (!out.ok()) return Status(out.status().kind(), where + out.status().message());
      bufs[size_t(i) + 1] = std::move(*out);
      live += layer.out.bytes();
    }
    std::vector<const DevBuf*> ins;
    for (int s : layer.sources) ins.push_back(&bufs[size_t((s < 0 ? -1 : plan.layers[s].buffer) + 1)]);
    const DevBuf& out = bufs[size_t(lp.buffer) + 1];
    LayerParams params(weights, layer, offsets[i]);
    size_t weight_bytes = 0;
    Status st;
    if (layer.aliases_input()) {
      st = Status::Ok();
    } else if (DeviceLayers::on_device(layer) && DeviceLayers::takes_conv_weights(layer)) {
      auto it = im.resident.find(i);
      if (it == im.resident.end()) {
        auto w = im.conv_weights(layer, weights, offsets[i], im.opts.keep_weights);
        if (!w.ok()) return Status(w.status().kind(), where + w.status().message());
        it = im.resident.emplace(i, std::move(*w)).first;
      }
      weight_bytes = it->second.bytes;
      st = im.layers->forward(layer, ins, out, &it->second);
      if (!im.opts.keep_weights) im.resident.erase(it);  // the arena is overwritten by the next conv
    } else if (DeviceLayers::on_device(layer)) {
      st = im.layers->forward(layer, ins, out, nullptr);
    } else {
      st = im.run_on_host(layer, ins, out, params, mem);
    }
    if (!st.ok()) return Status(st.kind(), where + st.message());
    if (hooks.on_output) {
      std::vector<float> host(layer.out.count());
      MDFI_RETURN_IF_ERROR(rt.read(out, host.data(), layer.out.bytes()));
      MDFI_RETURN_IF_ERROR(hooks.on_output(layer, host.data()));
    }
    // Device figures for weights, workspace and activations; host figures for the heap.
    LayerRunStats stats;
    stats.index = i;
    stats.weight_bytes = weight_bytes;
    stats.workspace_bytes = im.layers->workspace_bytes();
    stats.heap_peak = mem.phase_peak();
    for (int b : lp.frees) {
      DevBuf& buf = bufs[size_t(b) + 1];
      live -= buf.bytes();
      buf.reset();
      stats.freed.push_back(b);
    }
    stats.activation_bytes = live;
    stats.heap_after = mem.current().total();
    stats.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (hooks.on_layer) hooks.on_layer(stats);
  }
  mem.set_phase(n);
  rt.memory().set_phase(n);
  RunOutput result;
  for (int b = 0; b < n; ++b) {
    DevBuf& d = bufs[size_t(b) + 1];
    if (d.empty()) continue;
    auto h = Buffer::make(mem, net.layers[b]->out.count(), MemCategory::kActivations, "a kept output");
    if (!h.ok()) return h.status();
    MDFI_RETURN_IF_ERROR(rt.read(d, h->data(), h->bytes()));
    result.kept.emplace(b, std::move(*h));
  }
  MDFI_RETURN_IF_ERROR(rt.finish());
  return result;
}

Result<std::vector<float>> Backend::forward_layer(const Layer& layer, const std::vector<const float*>& inputs,
                                                  ParamSource& params) {
  Impl& im = *impl_;
  Runtime& rt = *im.rt;
  std::vector<DevBuf> in;
  std::vector<const DevBuf*> ins;
  for (size_t s = 0; s < inputs.size(); ++s) {
    const Shape sh = layer.source_shapes.empty() ? layer.in : layer.source_shapes[s];
    auto b = rt.alloc(sh.bytes(), "a layer input");
    if (!b.ok()) return b.status();
    MDFI_RETURN_IF_ERROR(rt.write(*b, inputs[s], sh.bytes()));
    in.push_back(std::move(*b));
  }
  for (const DevBuf& b : in) ins.push_back(&b);
  auto out = rt.alloc(layer.out.bytes(), "a layer output");
  if (!out.ok()) return out.status();
  std::vector<float> host(layer.out.count());
  if (layer.aliases_input()) {
    std::copy(inputs[0], inputs[0] + host.size(), host.begin());
    return host;
  }
  if (DeviceLayers::on_device(layer) && DeviceLayers::takes_conv_weights(layer)) {
    auto w = im.conv_weights(layer, params, false);
    if (!w.ok()) return w.status();
    MDFI_RETURN_IF_ERROR(im.layers->forward(layer, ins, *out, &*w));
  } else if (DeviceLayers::on_device(layer)) {
    MDFI_RETURN_IF_ERROR(im.layers->forward(layer, ins, *out, nullptr));
  } else {
    MemoryTracker mem;
    MDFI_RETURN_IF_ERROR(im.run_on_host(layer, ins, *out, params, mem));
  }
  MDFI_RETURN_IF_ERROR(rt.read(*out, host.data(), layer.out.bytes()));
  return host;
}

Status Backend::gemm(int M, int N, int K, const float* A, const float* B, float* C) {
  Runtime& rt = *impl_->rt;
  auto plan = impl_->tuner->plan_for(M, N, K);
  if (!plan.ok()) return plan.status();
  const GemmPlan& p = *plan;
  // The operands in the padded layout the kernels read (im2col produces B that way on its own).
  std::vector<float> at(p.at_floats(), 0.f), b(p.b_floats(), 0.f);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) at[size_t(k) * p.Mp + m] = A[size_t(m) * K + k];
  for (int k = 0; k < K; ++k) std::copy(B + size_t(k) * N, B + size_t(k + 1) * N, b.begin() + long(k) * p.Np);
  auto dat = rt.alloc(at.size() * 4, "A");
  if (!dat.ok()) return dat.status();
  auto db = rt.alloc(b.size() * 4, "B");
  if (!db.ok()) return db.status();
  auto dc = rt.alloc(size_t(M) * N * 4, "C");
  if (!dc.ok()) return dc.status();
  auto part = rt.alloc(std::max<size_t>(p.partial_floats(), 1) * 4, "partial sums");
  if (!part.ok()) return part.status();
  MDFI_RETURN_IF_ERROR(rt.write(*dat, at.data(), at.size() * 4));
  MDFI_RETURN_IF_ERROR(rt.write(*db, b.data(), b.size() * 4));
  MDFI_RETURN_IF_ERROR(enqueue_gemm(rt, p, dat->get(), db->get(), dc->get(), nullptr, -1, part->get()));
  return rt.read(*dc, C, size_t(M) * N * 4);
}

}  // namespace mdfi::cl
