// The OpenCL side of the engine's one plan walk (engine/exec_backend.h): DeviceExec keeps each
// buffer of a run on the device and runs each layer there; run_plan decides the order, the
// lifetimes, the hooks and the statistics. Activations never leave the device between layers.
// Each convolution's parameter range is streamed ahead of the walk (weight_stream.h: read by a
// pool of threads into pinned staging buffers, copied on a queue of its own while earlier
// layers compute), then turned into the SGEMM's layout by a kernel (with the network's
// batch-norm form folded in) into a one-layer weights arena that the next convolution
// overwrites (or into buffers of its own, kept across runs, with keep_weights). Layers without
// a device kernel run through their CPU reference on host copies of their inputs.
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "backend.h"
#include "layers.h"
#include "read_pool.h"
#include "weight_stream.h"
#include "weights.h"

namespace mdfi::cl {

bool compiled_in() { return true; }

Result<std::vector<DeviceSummary>> list_devices() {
  MDFI_ASSIGN_OR_RETURN(auto all, enumerate_devices());
  std::vector<DeviceSummary> out;
  for (const DeviceHandle& h : all) out.push_back(h.info);
  return out;
}

namespace {

double since_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Device time of a finished command, in ms (0 when the driver does not report it).
double event_ms(cl_event e) {
  cl_ulong a = 0, b = 0;
  if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr) != CL_SUCCESS) return 0;
  if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr) != CL_SUCCESS) return 0;
  return b > a ? double(b - a) / 1e6 : 0;
}

void release_all(std::vector<cl_event>& events) {
  for (cl_event e : events) clReleaseEvent(e);
  events.clear();
}

}  // namespace

struct Backend::Impl {
  BackendOptions opts;
  std::unique_ptr<Runtime> rt;
  std::unique_ptr<GemmTuner> tuner;
  std::unique_ptr<DeviceLayers> layers;
  std::unique_ptr<ReadPool> pool;
  std::vector<std::unique_ptr<StagingSlot>> slots;  // opts.staging_slots of them
  std::string resident_key;             // which network the kept weights belong to
  std::map<int, ConvWeights> resident;  // layer index -> prepared weights (keep_weights)
  RunTiming timing;                     // of the last run
  std::vector<cl_event>* upload_sink = nullptr;  // the running layer's upload events

  // The layer's streamed weights: waits until the stream has queued their copy, then queues
  // the preparation behind it (from the raw parameters into the SGEMM's layout, batch-norm
  // folded) and hands the slot back.
  Result<ConvWeights> conv_weights(const Layer& layer, WeightStream& stream, size_t job, bool own) {
    const auto tw = std::chrono::steady_clock::now();
    cl_event up = nullptr;
    auto slot = stream.ready(job, &up);
    timing.wait_ms += since_ms(tw);
    if (!slot.ok()) return slot.status();
    const std::vector<cl_event> ups{up};
    if (upload_sink) upload_sink->push_back(up);  // the sink owns the reference ready() gave
    else clReleaseEvent(up);                      // the stream keeps its own until it ends
    const auto tp = std::chrono::steady_clock::now();
    auto w = layers->prepare_conv(layer, (*slot)->device, own, &ups);
    timing.prep_ms += since_ms(tp);
    stream.consumed(job, w.ok() ? rt->last_event() : nullptr);
    return w;
  }
  // One layer's weights from any ParamSource, without the stream (forward_layer): a blocking
  // copy on the compute queue, which orders it after whatever read the slot before.
  Result<ConvWeights> conv_weights(const Layer& layer, ParamSource& params) {
    const size_t count = layer.param_floats();
    StagingSlot& st = *slots[0];
    MDFI_RETURN_IF_ERROR(st.ensure(*rt, count * 4));
    MDFI_RETURN_IF_ERROR(params.read(0, st.host(), count));
    MDFI_RETURN_IF_ERROR(rt->write(st.device, st.host(), count * 4));
    return layers->prepare_conv(layer, st.device, false);
  }

  // One layer on the device (or through the CPU reference when it has no kernel). `index` keys
  // the kept weights (-1: none kept); a convolution's weights come from `stream`'s job `job`,
  // or straight from `params` without a stream.
  Status run_layer(const Layer& layer, int index, const std::vector<const DevBuf*>& ins, const DevBuf& out,
                   ParamSource& params, WeightStream* stream, int job, MemoryTracker& mem, LayerRunStats& stats) {
    if (layer.aliases_input()) return Status::Ok();
    if (!DeviceLayers::on_device(layer)) {
      stats.on_host = true;
      return run_on_host(layer, ins, out, params, mem);
    }
    if (!DeviceLayers::takes_conv_weights(layer)) return layers->forward(layer, ins, out, nullptr);
    const bool keep = opts.keep_weights && index >= 0;
    auto it = index >= 0 ? resident.find(index) : resident.end();
    ConvWeights streamed;
    const ConvWeights* w = nullptr;
    if (it != resident.end()) {
      w = &it->second;
    } else {
      MDFI_ASSIGN_OR_RETURN(auto got, stream && job >= 0 ? conv_weights(layer, *stream, size_t(job), keep) : conv_weights(layer, params));
      if (keep) w = &resident.emplace(index, std::move(got)).first->second;
      else streamed = std::move(got), w = &streamed;  // lives in the arena: the next conv overwrites it
    }
    stats.weight_bytes = w->bytes;
    return layers->forward(layer, ins, out, w);
  }

  // A layer with no device kernel: host copies of its inputs through the CPU reference.
  Status run_on_host(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                     ParamSource& params, MemoryTracker& mem) {
    std::vector<Buffer> host_in;
    LayerIO io;
    for (size_t s = 0; s < inputs.size(); ++s) {
      MDFI_ASSIGN_OR_RETURN(auto b, Buffer::make(mem, layer.source_shapes.empty() ? layer.in.count() : layer.source_shapes[s].count(), MemCategory::kActivations, "a host copy of a layer input"));
      MDFI_RETURN_IF_ERROR(rt->read(*inputs[s], b.data(), b.bytes()));
      io.inputs.push_back(b.data());
      host_in.push_back(std::move(b));
    }
    MDFI_ASSIGN_OR_RETURN(auto o, Buffer::make(mem, layer.out.count(), MemCategory::kActivations, "a host layer output"));
    io.output = o.data();
    io.params = &params;
    io.mem = &mem;
    MDFI_RETURN_IF_ERROR(layer.forward(io));
    return rt->write(out, o.data(), o.bytes());
  }
};

namespace {

// One run's buffers on the device, for run_plan.
class DeviceExec : public ExecBackend {
 public:
  DeviceExec(Backend::Impl& im, const Network& net, WeightsFile& weights, MemoryTracker& mem)
      : im_(im), rt_(*im.rt), net_(net), weights_(weights), mem_(mem), offsets_(layer_param_offsets(net)),
        bufs_(net.layers.size() + 1), compute_(net.layers.size()), uploads_(net.layers.size()),
        job_of_(net.layers.size(), -1) {}
  ~DeviceExec() override {
    stream_.reset();  // stops its threads before the events below go
    rt_.record_into(nullptr);
    im_.upload_sink = nullptr;
    for (auto& v : compute_) release_all(v);
    for (auto& v : uploads_) release_all(v);
  }

  Status start(Buffer input) override {
    // Every convolution whose weights are not kept from an earlier run is streamed, in order.
    std::vector<WeightStream::Job> jobs;
    size_t largest = 0;
    for (const auto& l : net_.layers) {
      if (l->aliases_input() || !DeviceLayers::on_device(*l) || !DeviceLayers::takes_conv_weights(*l)) continue;
      if (im_.resident.count(l->index)) continue;
      job_of_[size_t(l->index)] = int(jobs.size());
      jobs.push_back({l.get(), offsets_[size_t(l->index)]});
      largest = std::max(largest, l->param_floats());
    }
    for (auto& slot : im_.slots) MDFI_RETURN_IF_ERROR(slot->ensure(rt_, largest * 4));
    stream_ = std::make_unique<WeightStream>(rt_, *im_.pool, weights_, im_.slots, std::move(jobs));
    MDFI_ASSIGN_OR_RETURN(auto in, rt_.alloc(input.bytes(), "the network input"));
    MDFI_RETURN_IF_ERROR(rt_.write(in, input.data(), input.bytes()));
    at(-1) = std::move(in);
    input.reset();
    return Status::Ok();
  }
  void at_layer(int layer) override { rt_.memory().set_phase(layer); }
  Status allocate(int id, size_t floats) override {
    MDFI_ASSIGN_OR_RETURN(auto out, rt_.alloc(floats * 4, "a layer output"));
    at(id) = std::move(out);
    return Status::Ok();
  }
  Status forward(const Layer& layer, const std::vector<int>& inputs, int output, ParamSource& params,
                 LayerRunStats& stats) override {
    std::vector<const DevBuf*> ins;
    for (int b : inputs) ins.push_back(&at(b));
    const size_t i = size_t(layer.index);
    rt_.record_into(&compute_[i]);
    im_.upload_sink = &uploads_[i];
    const auto t0 = std::chrono::steady_clock::now();
    Status st = im_.run_layer(layer, layer.index, ins, at(output), params, stream_.get(), job_of_[i], mem_, stats);
    rt_.record_into(nullptr);
    im_.upload_sink = nullptr;
    // Submit now: a driver that holds commands back until its batch fills would leave the
    // device idle while the host reads the next layers' weights.
    clFlush(rt_.queue());
    im_.timing.queue_ms += since_ms(t0);
    stats.workspace_bytes = im_.layers->workspace_bytes();
    if (stats.on_host) ++im_.timing.host_layers;
    // OpenCL errors get the layer here; read errors name it already, the walk adds it to OOM.
    if (!st.ok() && st.kind() != ErrorKind::kOutOfMemory && st.kind() != ErrorKind::kWeights &&
        st.kind() != ErrorKind::kIo)
      return Status(st.kind(), "layer " + std::to_string(layer.index) + " [" + layer.kind() + "]: " + st.message());
    return st;
  }
  Result<const float*> host_view(int id, size_t floats) override {
    view_.resize(floats);
    MDFI_RETURN_IF_ERROR(rt_.read(at(id), view_.data(), floats * 4));
    return static_cast<const float*>(view_.data());
  }
  void release(int id) override { at(id).reset(); }
  Result<Buffer> take(int id, size_t floats, MemoryTracker& mem) override {
    MDFI_ASSIGN_OR_RETURN(auto h, Buffer::make(mem, floats, MemCategory::kActivations, "a kept output"));
    MDFI_RETURN_IF_ERROR(rt_.read(at(id), h.data(), h.bytes()));
    at(id).reset();
    return h;
  }
  Status finish(std::vector<double>& device_ms) override {
    MDFI_RETURN_IF_ERROR(rt_.finish());
    if (stream_) im_.timing.read_ms = stream_->read_ms();
    device_ms.assign(compute_.size(), 0.0);
    for (size_t i = 0; i < compute_.size(); ++i) {
      for (cl_event e : compute_[i]) device_ms[i] += event_ms(e);
      for (cl_event e : uploads_[i]) im_.timing.upload_ms += event_ms(e);
      im_.timing.compute_ms += device_ms[i];
      release_all(compute_[i]);
      release_all(uploads_[i]);
    }
    return Status::Ok();
  }

 private:
  DevBuf& at(int id) { return bufs_[size_t(id) + 1]; }
  Backend::Impl& im_;
  Runtime& rt_;
  const Network& net_;
  WeightsFile& weights_;
  MemoryTracker& mem_;
  const std::vector<size_t> offsets_;
  std::vector<DevBuf> bufs_;  // [id + 1]
  std::vector<std::vector<cl_event>> compute_, uploads_;  // per layer, retained
  std::vector<float> view_;
  std::vector<int> job_of_;  // layer -> its job in the stream, -1 when not streamed
  std::unique_ptr<WeightStream> stream_;
};

}  // namespace

Backend::Backend(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Backend::~Backend() {
  if (impl_ && impl_->rt) impl_->rt->finish();
}

Result<std::unique_ptr<Backend>> Backend::open(const BackendOptions& opts) {
  auto impl = std::make_unique<Impl>();
  impl->opts = opts;
  MDFI_ASSIGN_OR_RETURN(auto rt, Runtime::open(opts.device));
  impl->rt = std::move(rt);
  impl->tuner = std::make_unique<GemmTuner>(*impl->rt, opts.autotune && impl->rt->device().is_gpu);
  impl->layers = std::make_unique<DeviceLayers>(*impl->rt, *impl->tuner);
  const int threads = opts.read_threads > 0 ? opts.read_threads
                                            : int(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
  impl->pool = std::make_unique<ReadPool>(threads);
  for (int k = 0; k < std::max(1, opts.staging_slots); ++k) impl->slots.push_back(std::make_unique<StagingSlot>());
  return std::unique_ptr<Backend>(new Backend(std::move(impl)));
}

const DeviceSummary& Backend::device() const { return impl_->rt->device().info; }

DeviceMemStats Backend::device_memory() const { return impl_->rt->memory().stats(); }

RunTiming Backend::last_timing() const { return impl_->timing; }

std::vector<int> Backend::host_layers(const Network& net) {
  std::vector<int> out;
  for (const auto& l : net.layers)
    if (!l->aliases_input() && !DeviceLayers::on_device(*l)) out.push_back(l->index);
  return out;
}

Result<RunOutput> Backend::run(const Network& net, const Plan& plan, WeightsFile& weights, Buffer input,
                               MemoryTracker& mem, const RunHooks& hooks) {
  Impl& im = *impl_;
  const std::string key = net.cfg_path + "#" + std::to_string(net.layers.size()) + "#" + weights.path();
  if (key != im.resident_key || !im.opts.keep_weights) {
    im.resident.clear();
    im.resident_key = key;
  }
  im.timing = RunTiming{};
  im.rt->memory().set_phase(-1);
  im.rt->memory().restart_peak();
  DeviceExec exec(im, net, weights, mem);
  // No read-ahead thread: the read pool's threads are the reads. Device buffers are not
  // aliased: a plan with views (routes in place, plan.h) is made again without them.
  const bool views = std::any_of(plan.layers.begin(), plan.layers.end(), [](const LayerPlan& lp) { return lp.view_of >= 0; });
  if (views) return run_plan(net, make_plan(net, false), weights, std::move(input), mem, exec, hooks, false);
  return run_plan(net, plan, weights, std::move(input), mem, exec, hooks, false);
}

Result<std::vector<float>> Backend::forward_layer(const Layer& layer, const std::vector<const float*>& inputs,
                                                  ParamSource& params) {
  Impl& im = *impl_;
  Runtime& rt = *im.rt;
  std::vector<float> host(layer.out.count());
  if (layer.aliases_input()) {
    std::copy(inputs[0], inputs[0] + host.size(), host.begin());
    return host;
  }
  std::vector<DevBuf> in;
  std::vector<const DevBuf*> ins;
  for (size_t s = 0; s < inputs.size(); ++s) {
    const Shape sh = layer.source_shapes.empty() ? layer.in : layer.source_shapes[s];
    MDFI_ASSIGN_OR_RETURN(auto b, rt.alloc(sh.bytes(), "a layer input"));
    MDFI_RETURN_IF_ERROR(rt.write(b, inputs[s], sh.bytes()));
    in.push_back(std::move(b));
  }
  for (const DevBuf& b : in) ins.push_back(&b);
  MDFI_ASSIGN_OR_RETURN(auto out, rt.alloc(layer.out.bytes(), "a layer output"));
  MemoryTracker mem;
  LayerRunStats stats;
  MDFI_RETURN_IF_ERROR(im.run_layer(layer, -1, ins, out, params, nullptr, -1, mem, stats));
  MDFI_RETURN_IF_ERROR(rt.read(out, host.data(), layer.out.bytes()));
  return host;
}

Status Backend::gemm(int M, int N, int K, const float* A, const float* B, float* C) {
  Runtime& rt = *impl_->rt;
  MDFI_ASSIGN_OR_RETURN(auto plan, impl_->tuner->plan_for(M, N, K));
  const GemmPlan& p = plan;
  // The operands in the padded layout the kernels read (im2col produces B that way on its own).
  std::vector<float> at(p.at_floats(), 0.f), b(p.b_floats(), 0.f);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) at[size_t(k) * p.Mp + m] = A[size_t(m) * K + k];
  for (int k = 0; k < K; ++k) std::copy(B + size_t(k) * N, B + size_t(k + 1) * N, b.begin() + long(k) * p.Np);
  MDFI_ASSIGN_OR_RETURN(auto dat, rt.alloc(at.size() * 4, "A"));
  MDFI_ASSIGN_OR_RETURN(auto db, rt.alloc(b.size() * 4, "B"));
  MDFI_ASSIGN_OR_RETURN(auto dc, rt.alloc(size_t(M) * N * 4, "C"));
  MDFI_ASSIGN_OR_RETURN(auto part, rt.alloc(std::max<size_t>(p.partial_floats(), 1) * 4, "partial sums"));
  MDFI_RETURN_IF_ERROR(rt.write(dat, at.data(), at.size() * 4));
  MDFI_RETURN_IF_ERROR(rt.write(db, b.data(), b.size() * 4));
  MDFI_RETURN_IF_ERROR(enqueue_gemm(rt, p, dat.get(), db.get(), dc.get(), nullptr, -1, part.get()));
  return rt.read(dc, C, size_t(M) * N * 4);
}

}  // namespace mdfi::cl
