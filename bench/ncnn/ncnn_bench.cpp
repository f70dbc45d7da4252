// Times ncnn (the Raspberry Pi users' engine) on one input tensor, for bench/ncnn.sh. Built only by
// that script against ../shared/peers/ncnn, never by the project build or tests: ncnn is a peer to
// measure against, not a dependency.
//
//   [NCNN_BLOB=NAME] ncnn_bench PARAM BIN INPUT.npy THREADS ROUNDS [REF.npy ...]
//
// INPUT.npy is mdfi's own network input (mdfi --dump-layers DIR writes DIR/input.npy), so both
// engines do the same work on the same numbers. Timed: one Extractor, input, and extract of every
// blob that feeds a Yolov3DetectionOutput layer (or the last layer's output, for classifiers), in
// fp32 with ncnn's default Winograd and sgemm convolutions; one untimed warm-up first.
// Prints "ncnn_ms=MEDIAN min=.. max=.." and, given REF.npy files (mdfi's tensors at the same
// points, in the same order), "relrms=..." per blob: sqrt(sum (a-b)^2 / sum b^2).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "net.h"

namespace {

struct Npy {
  std::vector<int> shape;
  std::vector<float> data;
};

// Reads a little-endian float32 C-order .npy (v1/v2 header); false with a message on anything else.
bool read_npy(const char* path, Npy* out) {
  std::ifstream f(path, std::ios::binary);
  char magic[8];
  if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    std::fprintf(stderr, "%s: not a .npy file\n", path);
    return false;
  }
  uint32_t hlen = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    f.read(reinterpret_cast<char*>(b), 2);
    hlen = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    f.read(reinterpret_cast<char*>(b), 4);
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  }
  std::string header(hlen, '\0');
  f.read(&header[0], hlen);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos) {
    std::fprintf(stderr, "%s: needs little-endian float32 in C order\n", path);
    return false;
  }
  const size_t open = header.find("'shape': (");
  const size_t close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) {
    std::fprintf(stderr, "%s: no shape in the header\n", path);
    return false;
  }
  std::stringstream dims(header.substr(open + 10, close - open - 10));
  size_t count = 1;
  for (std::string d; std::getline(dims, d, ',');)
    if (d.find_first_of("0123456789") != std::string::npos) {
      out->shape.push_back(std::atoi(d.c_str()));
      count *= size_t(out->shape.back());
    }
  out->data.resize(count);
  if (!f.read(reinterpret_cast<char*>(out->data.data()), std::streamsize(count * sizeof(float)))) {
    std::fprintf(stderr, "%s: shorter than its shape says\n", path);
    return false;
  }
  return true;
}

// The input blob (the Input layer's output) and the blobs to extract, read from the .param text.
bool find_blobs(const char* param, std::string* input, std::vector<std::string>* outputs) {
  std::ifstream f(param);
  std::string line, last_output;
  while (std::getline(f, line)) {
    std::istringstream s(line);
    std::string type, name;
    int n_in = 0, n_out = 0;
    if (!(s >> type >> name >> n_in >> n_out)) continue;
    std::vector<std::string> ins(size_t(std::max(n_in, 0))), outs(size_t(std::max(n_out, 0)));
    for (auto& b : ins) s >> b;
    for (auto& b : outs) s >> b;
    if (type == "Input" && !outs.empty()) *input = outs[0];
    if (type == "Yolov3DetectionOutput") *outputs = ins;
    if (!outs.empty()) last_output = outs[0];
  }
  if (outputs->empty() && !last_output.empty()) outputs->push_back(last_output);
  if (input->empty() || outputs->empty()) {
    std::fprintf(stderr, "%s: no Input layer or no output blob found\n", param);
    return false;
  }
  return true;
}

double rel_rms(const ncnn::Mat& m, const Npy& ref) {
  const size_t plane = size_t(m.w) * m.h;
  if (ref.data.size() != plane * size_t(m.c)) return -1;
  double num = 0, den = 0;
  for (int c = 0; c < m.c; ++c) {
    const float* p = m.channel(c);
    const float* r = ref.data.data() + size_t(c) * plane;
    for (size_t i = 0; i < plane; ++i) {
      const double d = double(p[i]) - r[i];
      num += d * d;
      den += double(r[i]) * r[i];
    }
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s PARAM BIN INPUT.npy THREADS ROUNDS [REF.npy ...]\n", argv[0]);
    return 2;
  }
  const int threads = std::atoi(argv[4]), rounds = std::atoi(argv[5]);
  std::string input_blob;
  std::vector<std::string> outputs;
  if (!find_blobs(argv[1], &input_blob, &outputs)) return 1;
  // NCNN_BLOB=NAME: the run up to that blob alone (ncnn computes only what it needs), for
  // bench/ncnn-layers.sh, which compares such cumulative times with mdfi's per-layer ones.
  if (const char* only = std::getenv("NCNN_BLOB"); only && *only) outputs.assign(1, only);
  Npy in;
  if (!read_npy(argv[3], &in)) return 1;
  if (in.shape.size() != 3) {
    std::fprintf(stderr, "%s: expected a C x H x W tensor\n", argv[3]);
    return 1;
  }

  ncnn::Net net;
  net.opt.num_threads = threads;
  net.opt.use_vulkan_compute = false;
  net.opt.use_fp16_storage = false;
  net.opt.use_fp16_packed = false;
  net.opt.use_fp16_arithmetic = false;
  net.opt.use_bf16_storage = false;
  net.opt.use_int8_inference = false;
  if (net.load_param(argv[1]) != 0 || net.load_model(argv[2]) != 0) {
    std::fprintf(stderr, "%s / %s: ncnn could not load the model\n", argv[1], argv[2]);
    return 1;
  }
  ncnn::Mat mat(in.shape[2], in.shape[1], in.shape[0]);
  const size_t plane = size_t(in.shape[1]) * in.shape[2];
  for (int c = 0; c < in.shape[0]; ++c) std::memcpy(mat.channel(c), in.data.data() + c * plane, plane * sizeof(float));

  std::vector<ncnn::Mat> result(outputs.size());
  std::vector<double> ms;
  for (int r = 0; r <= rounds; ++r) {  // round 0 is the warm-up
    const auto t0 = std::chrono::steady_clock::now();
    ncnn::Extractor ex = net.create_extractor();
    ex.input(input_blob.c_str(), mat);
    for (size_t i = 0; i < outputs.size(); ++i)
      if (ex.extract(outputs[i].c_str(), result[i]) != 0) {
        std::fprintf(stderr, "%s: extract %s failed\n", argv[1], outputs[i].c_str());
        return 1;
      }
    const auto t1 = std::chrono::steady_clock::now();
    if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  std::printf("ncnn_ms=%.3f min=%.3f max=%.3f threads=%d rounds=%d\n", med, ms.front(), ms.back(), threads, rounds);
  for (int i = 6; i < argc && size_t(i - 6) < result.size(); ++i) {
    Npy ref;
    if (!read_npy(argv[i], &ref)) return 1;
    const ncnn::Mat& m = result[size_t(i - 6)];
    const double e = rel_rms(m, ref);
    if (e < 0)
      std::printf("relrms %s: shape mismatch (ncnn %dx%dx%d, mdfi %zu floats)\n", outputs[size_t(i - 6)].c_str(), m.c,
                  m.h, m.w, ref.data.size());
    else
      std::printf("relrms %s (%dx%dx%d): %.3g\n", outputs[size_t(i - 6)].c_str(), m.c, m.h, m.w, e);
  }
  return 0;
}
