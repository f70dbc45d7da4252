// Weights file tests (issue 2, items 5 and 6): both `seen` header widths read from files written
// byte by byte here, per-layer offsets for a cfg whose parameter counts are worked out by hand,
// the exact-size check and its message, reading a layer's floats by offset, the generator's
// determinism and sizes, and every shipped cfg and real model in ../shared validating.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "network.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// Raw little-endian-as-the-host header words, written without going through WeightsHeader.
void put_i32(std::string& b, int32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
void put_u32(std::string& b, uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
void put_u64(std::string& b, uint64_t v) { b.append(reinterpret_cast<const char*>(&v), 8); }
void put_f32(std::string& b, float v) { b.append(reinterpret_cast<const char*>(&v), 4); }

std::string write_file(const std::string& dir, const std::string& name, const std::string& bytes) {
  const std::string p = dir + "/" + name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}


// net 4x4x3 with parameter counts worked out by hand:
//   0 conv 2 filters 3x3, no BN:     2 biases + 2*3*3*3 weights     = 56   at 0
//   1 conv 4 filters 1x1, BN:        4 biases + 3*4 BN + 4*2 weights = 24   at 56
//   2 maxpool 2/2 -> 4x2x2:          0                                      at 80
//   3 connected 16 -> 5, BN:         5 biases + 5*16 weights + 3*5 BN = 100 at 80
//   4 softmax:                       0                                      at 180
const char* kHandCfg =
    "[net]\nwidth=4\nheight=4\nchannels=3\n"
    "[convolutional]\nfilters=2\nsize=3\npad=1\nactivation=leaky\n"
    "[convolutional]\nbatch_normalize=1\nfilters=4\nsize=1\nactivation=leaky\n"
    "[maxpool]\nsize=2\nstride=2\n"
    "[connected]\nbatch_normalize=1\noutput=5\nactivation=linear\n"
    "[softmax]\n";
const size_t kHandFloats = 180;

Network hand_net() {
  auto n = network_from_text(kHandCfg, "weights_hand.cfg");
  INFO((n.ok() ? std::string() : n.status().message()));
  REQUIRE(n.ok());
  return std::move(*n);
}

// A file of the hand cfg: the given header bytes, then float(i) for parameter i.
std::string hand_weights(const std::string& dir, const std::string& name, const std::string& header,
                         long extra_bytes = 0) {
  std::string b = header;
  for (size_t i = 0; i < kHandFloats; ++i) put_f32(b, float(i));
  if (extra_bytes > 0) b.append(size_t(extra_bytes), '\x01');
  if (extra_bytes < 0) b.resize(b.size() - size_t(-extra_bytes));
  return write_file(dir, name, b);
}

std::string header64(int32_t major, int32_t minor, int32_t rev, uint64_t seen) {
  std::string b;
  put_i32(b, major);
  put_i32(b, minor);
  put_i32(b, rev);
  put_u64(b, seen);
  return b;
}

std::string header32(int32_t major, int32_t minor, int32_t rev, uint32_t seen) {
  std::string b;
  put_i32(b, major);
  put_i32(b, minor);
  put_i32(b, rev);
  put_u32(b, seen);
  return b;
}

// A sparse file of exactly `bytes` whose first bytes are a 0.2 header: validate() only looks at
// the header and the size, so a 248 MB network costs no disk and no time.
std::string sparse_weights(const std::string& dir, const std::string& name, uint64_t bytes) {
  const std::string p = write_file(dir, name, header64(0, 2, 0, 0));
  REQUIRE(::truncate(p.c_str(), off_t(bytes)) == 0);
  return p;
}

}  // namespace

TEST_CASE("header: 64-bit seen for version 0.2, read from a hand-written file", "[weights]") {
  const std::string dir = tmp_dir("weights_hdr64");
  const Network net = hand_net();
  const std::string p = hand_weights(dir, "v02.weights", header64(0, 2, 5, 0x0000000123456789ull));
  auto wf = WeightsFile::open(p);
  INFO((wf.ok() ? std::string() : wf.status().message()));
  REQUIRE(wf.ok());
  CHECK(wf->header().major == 0);
  CHECK(wf->header().minor == 2);
  CHECK(wf->header().revision == 5);
  CHECK(wf->header().seen == 0x0000000123456789ull);  // needs all 64 bits
  CHECK(wf->header().seen_is_64bit());
  CHECK(wf->header().bytes() == 20);
  CHECK_FALSE(wf->header().transposed());
  CHECK(wf->file_bytes() == 20 + 4 * kHandFloats);
  CHECK(wf->validate(net).ok());
  // The first parameter sits right after the 20-byte header.
  float v[3] = {-1, -1, -1};
  REQUIRE(wf->read(0, v, 3, 0, "conv").ok());
  CHECK(v[0] == 0.f);
  CHECK(v[1] == 1.f);
  CHECK(v[2] == 2.f);
  // Versions past 0.2 with small numbers are 64-bit too (major*10+minor >= 2).
  for (auto mm : {std::pair<int, int>{1, 0}, {0, 3}, {999, 999}}) {
    const std::string q = hand_weights(dir, "v64.weights", header64(mm.first, mm.second, 0, 7));
    auto w = WeightsFile::open(q);
    REQUIRE(w.ok());
    INFO(mm.first << "." << mm.second);
    CHECK(w->header().seen_is_64bit());
    CHECK(w->header().seen == 7);
    CHECK(w->validate(net).ok());
  }
}

TEST_CASE("header: 32-bit seen for version 0.1 and for major/minor >= 1000", "[weights]") {
  const std::string dir = tmp_dir("weights_hdr32");
  const Network net = hand_net();
  struct Case {
    int32_t major, minor;
    bool transposed;
  };
  const Case cases[] = {{0, 1, false}, {0, 0, false}, {1000, 2, false}, {1001, 0, true}, {0, 1000, false}, {2, 1001, true}};
  for (const Case& c : cases) {
    INFO("version " << c.major << "." << c.minor);
    const std::string p = hand_weights(dir, "v32.weights", header32(c.major, c.minor, 3, 0xDEADBEEFu));
    auto wf = WeightsFile::open(p);
    INFO((wf.ok() ? std::string() : wf.status().message()));
    REQUIRE(wf.ok());
    CHECK(wf->header().major == c.major);
    CHECK(wf->header().minor == c.minor);
    CHECK(wf->header().revision == 3);
    CHECK(wf->header().seen == 0xDEADBEEFu);
    CHECK_FALSE(wf->header().seen_is_64bit());
    CHECK(wf->header().bytes() == 16);
    CHECK(wf->header().transposed() == c.transposed);
    CHECK(wf->validate(net).ok());
    // The parameters start after 16 bytes, not 20.
    float v[2] = {-1, -1};
    REQUIRE(wf->read(56, v, 2, 1, "conv").ok());
    CHECK(v[0] == 56.f);
    CHECK(v[1] == 57.f);
  }
  // A file written for one width and read with the other is off by 4 bytes: validate says so.
  const std::string wrong = hand_weights(dir, "wrong.weights", header32(0, 2, 0, 0));  // 0.2 needs 8 bytes of seen
  auto wf = WeightsFile::open(wrong);
  REQUIRE(wf.ok());
  const Status st = wf->validate(net);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains("expected " + std::to_string(20 + 4 * kHandFloats)) &&
                               Catch::Contains("got " + std::to_string(16 + 4 * kHandFloats)));
}

TEST_CASE("header: files too short for their header are refused", "[weights]") {
  const std::string dir = tmp_dir("weights_short_hdr");
  std::string b;
  put_i32(b, 0);
  put_i32(b, 2);
  auto tiny = WeightsFile::open(write_file(dir, "8.weights", b));
  REQUIRE_FALSE(tiny.ok());
  CHECK(tiny.status().kind() == ErrorKind::kWeights);
  CHECK_THAT(tiny.status().message(), Catch::Contains("8.weights") && Catch::Contains("8 bytes"));
  // A 0.2 header needs 20 bytes; 18 end inside the 64-bit seen.
  put_i32(b, 0);
  b.append("\0\0\0\0\0\0", 6);
  auto cut = WeightsFile::open(write_file(dir, "18.weights", b));
  REQUIRE_FALSE(cut.ok());
  CHECK_THAT(cut.status().message(), Catch::Contains("18.weights") && Catch::Contains("64-bit"));
  auto empty = WeightsFile::open(write_file(dir, "0.weights", ""));
  REQUIRE_FALSE(empty.ok());
  CHECK_THAT(empty.status().message(), Catch::Contains("0 bytes"));
  auto missing = WeightsFile::open(dir + "/none.weights");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().kind() == ErrorKind::kIo);
  CHECK_THAT(missing.status().message(), Catch::Contains("none.weights"));
  auto d = WeightsFile::open(dir);
  REQUIRE_FALSE(d.ok());
  CHECK_THAT(d.status().message(), Catch::Contains("directory"));
}

TEST_CASE("layer_param_offsets and param_layout for a hand-computed cfg", "[weights]") {
  const Network net = hand_net();
  REQUIRE(net.layers.size() == 5);
  CHECK(layer_param_offsets(net) == std::vector<size_t>{0, 56, 80, 80, 180, 180});
  CHECK(net.param_floats() == kHandFloats);
  const size_t per_layer[] = {56, 24, 0, 100, 0};
  for (size_t i = 0; i < 5; ++i) CHECK(net.layers[i]->param_floats() == per_layer[i]);

  auto roles = [](const Layer& l) {
    std::vector<std::pair<ParamRole, size_t>> v;
    for (const ParamSegment& s : l.param_layout()) v.emplace_back(s.role, s.count);
    return v;
  };
  using R = ParamRole;
  // conv without BN: biases, then weights n*c/groups*size*size.
  CHECK(roles(*net.layers[0]) == std::vector<std::pair<R, size_t>>{{R::kBias, 2}, {R::kWeight, 54}});
  // conv with BN: biases, scales, rolling mean, rolling variance, then weights.
  CHECK(roles(*net.layers[1]) ==
        std::vector<std::pair<R, size_t>>{{R::kBias, 4}, {R::kScale, 4}, {R::kMean, 4}, {R::kVariance, 4}, {R::kWeight, 8}});
  CHECK(roles(*net.layers[2]).empty());
  // connected with BN: biases, weights, then the BN triplet.
  CHECK(roles(*net.layers[3]) ==
        std::vector<std::pair<R, size_t>>{{R::kBias, 5}, {R::kWeight, 80}, {R::kScale, 5}, {R::kMean, 5}, {R::kVariance, 5}});
  // Fan-in for the generator's scaling: c/groups*k*k for conv, inputs for connected.
  CHECK(net.layers[0]->param_layout().back().fan_in == 27);
  CHECK(net.layers[3]->param_layout()[1].fan_in == 16);

  // Grouped conv and a batchnorm layer: weights shrink by the group count; batchnorm holds its triplet.
  auto g = network_from_text("[net]\nwidth=2\nheight=2\nchannels=4\n"
                             "[convolutional]\nfilters=6\nsize=3\npad=1\ngroups=2\nactivation=linear\n"  // 6 + 6*2*9 = 114
                             "[batchnorm]\n"                                                              // 3*6 = 18
                             "[convolutional]\nfilters=6\nsize=3\npad=1\ngroups=6\nactivation=linear\n",  // 6 + 6*9 = 60
                             "weights_groups.cfg");
  REQUIRE(g.ok());
  CHECK(layer_param_offsets(*g) == std::vector<size_t>{0, 114, 132, 192});
}

TEST_CASE("LayerParams reads a layer's floats at its offset, and no further", "[weights]") {
  const std::string dir = tmp_dir("weights_layerparams");
  const Network net = hand_net();
  const std::vector<size_t> off = layer_param_offsets(net);
  for (const std::string& header : {header64(0, 2, 0, 0), header32(0, 1, 0, 0)}) {
    auto wf = WeightsFile::open(hand_weights(dir, "lp.weights", header));
    REQUIRE(wf.ok());
    // Layer 1 (conv with BN): biases 56..59, scales 60..63, means 64..67, variances 68..71, weights 72..79.
    LayerParams conv(*wf, *net.layers[1], off[1]);
    float head[16];
    REQUIRE(conv.read(0, head, 16).ok());
    for (int i = 0; i < 16; ++i) CHECK(head[i] == float(56 + i));
    float w[8];
    REQUIRE(conv.read(16, w, 8).ok());
    CHECK(w[0] == 72.f);
    CHECK(w[7] == 79.f);
    // Layer 3 (connected with BN): biases 80..84, weights 85..164, scales 165.., means 170.., variances 175..179.
    LayerParams fc(*wf, *net.layers[3], off[3]);
    float bn[15];
    REQUIRE(fc.read(85, bn, 15).ok());
    CHECK(bn[0] == 165.f);
    CHECK(bn[5] == 170.f);
    CHECK(bn[14] == 179.f);
    // Reading past the layer's own range is refused, even though the file has more.
    float spill[2];
    CHECK_FALSE(conv.read(23, spill, 2).ok());
    CHECK(conv.read(23, spill, 1).ok());
    CHECK(spill[0] == 79.f);
  }
  // A NaN in the file is refused with the byte offset and layer.
  std::string b = header64(0, 2, 0, 0);
  for (size_t i = 0; i < kHandFloats; ++i) put_f32(b, i == 58 ? std::nanf("") : float(i));
  auto wf = WeightsFile::open(write_file(dir, "nan.weights", b));
  REQUIRE(wf.ok());
  LayerParams conv(*wf, *net.layers[1], off[1]);
  float head[4];
  const Status st = conv.read(0, head, 4);
  REQUIRE_FALSE(st.ok());
  CHECK(st.kind() == ErrorKind::kWeights);
  CHECK_THAT(st.message(), Catch::Contains("layer 1 [conv]") && Catch::Contains("NaN") &&
                               Catch::Contains(std::to_string(20 + 58 * 4)));
}

TEST_CASE("MDFI_MMAP=1: views of the mapped file hold read()'s floats and refuse what it refuses", "[weights]") {
  const std::string dir = tmp_dir("weights_views");
  const Network net = hand_net();
  const std::vector<size_t> off = layer_param_offsets(net);
  struct MapEnv {  // set for this test only
    MapEnv() { setenv("MDFI_MMAP", "1", 1); }
    ~MapEnv() { unsetenv("MDFI_MMAP"); }
  };
  {
    auto plain = WeightsFile::open(hand_weights(dir, "plain.weights", header64(0, 2, 0, 0)));
    REQUIRE(plain.ok());
    CHECK_FALSE(plain->mapped());  // opt-in
    LayerParams conv(*plain, *net.layers[1], off[1]);
    Status st = Status(ErrorKind::kInternal, "unset");
    CHECK(conv.view(0, 4, &st) == nullptr);
    CHECK(st.ok());  // not mapped: the caller reads instead
  }
  MapEnv env;
  for (const std::string& header : {header64(0, 2, 0, 0), header32(0, 1, 0, 0)}) {
    auto wf = WeightsFile::open(hand_weights(dir, "view.weights", header));
    REQUIRE(wf.ok());
    REQUIRE(wf->mapped());
    for (int layer : {1, 3}) {
      LayerParams lp(*wf, *net.layers[size_t(layer)], off[size_t(layer)]);
      const size_t n = net.layers[size_t(layer)]->param_floats();
      std::vector<float> got(n);
      REQUIRE(lp.read(0, got.data(), n).ok());
      Status st;
      const float* v = lp.view(0, n, &st);
      REQUIRE(st.ok());
      REQUIRE(v != nullptr);
      for (size_t i = 0; i < n; ++i) CHECK(v[i] == got[i]);
      // Past the layer's own range: no view (read() says why).
      CHECK(lp.view(n - 1, 2, &st) == nullptr);
      CHECK(st.ok());
      CHECK_FALSE(lp.read(n - 1, got.data(), 2).ok());
    }
  }
  // A NaN is refused through a view with read()'s message.
  std::string b = header64(0, 2, 0, 0);
  for (size_t i = 0; i < kHandFloats; ++i) put_f32(b, i == 58 ? std::nanf("") : float(i));
  auto wf = WeightsFile::open(write_file(dir, "nan-view.weights", b));
  REQUIRE(wf.ok());
  REQUIRE(wf->mapped());
  LayerParams conv(*wf, *net.layers[1], off[1]);
  Status st;
  CHECK(conv.view(0, 4, &st) == nullptr);
  REQUIRE_FALSE(st.ok());
  float head[4];
  const Status by_read = conv.read(0, head, 4);
  CHECK(st.kind() == ErrorKind::kWeights);
  CHECK(st.message() == by_read.message());
}

TEST_CASE("map_range: views inside a mapped range hold read()'s floats, none outside, NaN refused alike", "[weights]") {
  const std::string dir = tmp_dir("weights_range");
  const Network net = hand_net();
  const std::vector<size_t> off = layer_param_offsets(net);
  for (const std::string& header : {header64(0, 2, 0, 0), header32(0, 1, 0, 0)}) {
    auto wf = WeightsFile::open(hand_weights(dir, "range.weights", header));
    REQUIRE(wf.ok());
    REQUIRE_FALSE(wf->mapped());
    // Layer 1's parameters only (an offset inside the file's first page: the mapping starts at
    // the page boundary below it).
    const size_t n1 = net.layers[1]->param_floats();
    REQUIRE(wf->map_range(off[1], n1));
    CHECK(wf->map_range(off[1] + 1, n1 - 1));  // inside the range mapped before: nothing new
    LayerParams in(*wf, *net.layers[1], off[1]);
    std::vector<float> got(n1);
    REQUIRE(in.read(0, got.data(), n1).ok());
    Status st = Status(ErrorKind::kInternal, "unset");
    const float* v = in.view(0, n1, &st);
    REQUIRE(st.ok());
    REQUIRE(v != nullptr);
    for (size_t i = 0; i < n1; ++i) CHECK(v[i] == got[i]);
    // Layer 3 lies outside it: no view, read() as before.
    LayerParams out(*wf, *net.layers[3], off[3]);
    st = Status(ErrorKind::kInternal, "unset");
    CHECK(out.view(0, 2, &st) == nullptr);
    CHECK(st.ok());
  }
  // A NaN inside the range: the view refuses it with read()'s message.
  std::string b = header64(0, 2, 0, 0);
  for (size_t i = 0; i < kHandFloats; ++i) put_f32(b, i == 58 ? std::nanf("") : float(i));
  auto wf = WeightsFile::open(write_file(dir, "nan-range.weights", b));
  REQUIRE(wf.ok());
  REQUIRE(wf->map_range(off[1], net.layers[1]->param_floats()));
  LayerParams conv(*wf, *net.layers[1], off[1]);
  Status st;
  CHECK(conv.view(0, 4, &st) == nullptr);
  REQUIRE_FALSE(st.ok());
  float head[4];
  CHECK(st.message() == conv.read(0, head, 4).message());
  // MDFI_MMAP=0: no mapping at all.
  setenv("MDFI_MMAP", "0", 1);
  auto off0 = WeightsFile::open(hand_weights(dir, "range0.weights", header64(0, 2, 0, 0)));
  unsetenv("MDFI_MMAP");
  REQUIRE(off0.ok());
  CHECK_FALSE(off0->map_range(off[1], net.layers[1]->param_floats()));
}

TEST_CASE("validate: exact size passes, one byte short or long is refused with expected vs actual", "[weights]") {
  const std::string dir = tmp_dir("weights_validate");
  const Network net = hand_net();
  const uint64_t expected = 20 + 4 * kHandFloats;  // 740
  auto exact = WeightsFile::open(hand_weights(dir, "exact.weights", header64(0, 2, 0, 0)));
  REQUIRE(exact.ok());
  CHECK(exact->validate(net).ok());

  auto short1 = WeightsFile::open(hand_weights(dir, "short.weights", header64(0, 2, 0, 0), -1));
  REQUIRE(short1.ok());
  Status st = short1->validate(net);
  REQUIRE_FALSE(st.ok());
  CHECK(st.kind() == ErrorKind::kWeights);
  INFO(st.message());
  CHECK_THAT(st.message(), Catch::Contains("short.weights") && Catch::Contains("expected " + std::to_string(expected)) &&
                               Catch::Contains("got " + std::to_string(expected - 1)) &&
                               Catch::Contains("layer 3 [connected] does not fit"));

  auto long1 = WeightsFile::open(hand_weights(dir, "long.weights", header64(0, 2, 0, 0), 1));
  REQUIRE(long1.ok());
  st = long1->validate(net);
  REQUIRE_FALSE(st.ok());
  CHECK(st.kind() == ErrorKind::kWeights);
  CHECK_THAT(st.message(), Catch::Contains("long.weights") && Catch::Contains("expected " + std::to_string(expected)) &&
                               Catch::Contains("got " + std::to_string(expected + 1)) && Catch::Contains("1 bytes more"));

  // Cut inside layer 1: it is the first that does not fit (layer 0 ends at float 56).
  std::string b = header64(0, 2, 0, 0);
  for (int i = 0; i < 60; ++i) put_f32(b, 0.f);
  auto mid = WeightsFile::open(write_file(dir, "mid.weights", b));
  REQUIRE(mid.ok());
  st = mid->validate(net);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains("layer 1 [conv] does not fit") && Catch::Contains("got 260"));
  // Header only: layer 0 does not fit.
  auto bare = WeightsFile::open(write_file(dir, "bare.weights", header64(0, 2, 0, 0)));
  REQUIRE(bare.ok());
  CHECK_THAT(bare->validate(net).message(), Catch::Contains("layer 0 [conv] does not fit"));

  // The same with the 16-byte header.
  auto short32 = WeightsFile::open(hand_weights(dir, "short32.weights", header32(0, 1, 0, 0), -1));
  REQUIRE(short32.ok());
  CHECK_THAT(short32->validate(net).message(),
             Catch::Contains("expected " + std::to_string(expected - 4)) && Catch::Contains("layer 3 [connected]"));
  auto long32 = WeightsFile::open(hand_weights(dir, "long32.weights", header32(0, 1, 0, 0), 1));
  REQUIRE(long32.ok());
  CHECK_THAT(long32->validate(net).message(), Catch::Contains("got " + std::to_string(expected - 4 + 1)));
}

TEST_CASE("generate_weights is deterministic, seed-dependent and exactly sized", "[weights]") {
  const std::string dir = tmp_dir("weights_gen");
  const Network net = hand_net();
  REQUIRE(generate_weights(net, dir + "/a.weights", 1).ok());
  REQUIRE(generate_weights(net, dir + "/b.weights", 1).ok());
  REQUIRE(generate_weights(net, dir + "/c.weights", 2).ok());
  const std::string a = slurp(dir + "/a.weights"), b = slurp(dir + "/b.weights"), c = slurp(dir + "/c.weights");
  CHECK(a.size() == 20 + 4 * kHandFloats);
  CHECK(a == b);
  CHECK(c.size() == a.size());
  CHECK(a.substr(0, 20) == c.substr(0, 20));  // same header
  CHECK(a != c);
  CHECK(a.substr(20) != c.substr(20));
  // BN variances are positive and every value is finite.
  auto wf = WeightsFile::open(dir + "/a.weights");
  REQUIRE(wf.ok());
  CHECK(wf->header().seen_is_64bit());
  REQUIRE(wf->validate(net).ok());
  float all[kHandFloats];
  REQUIRE(wf->read(0, all, kHandFloats, 0, "all").ok());
  for (int i = 68; i < 72; ++i) CHECK(all[i] > 0.f);    // conv BN variances
  for (int i = 175; i < 180; ++i) CHECK(all[i] > 0.f);  // connected BN variances
  // A 0.1 header writes a 32-bit seen.
  WeightsHeader old;
  old.major = 0;
  old.minor = 1;
  old.seen = 42;
  REQUIRE(generate_weights(net, dir + "/old.weights", 1, old).ok());
  auto o = WeightsFile::open(dir + "/old.weights");
  REQUIRE(o.ok());
  CHECK(o->file_bytes() == 16 + 4 * kHandFloats);
  CHECK(o->header().seen == 42);
  CHECK(o->validate(net).ok());
  CHECK(slurp(dir + "/old.weights").substr(16) == a.substr(20));  // same parameters
}

TEST_CASE("generated sizes equal the official yolov3 and yolov3-tiny files", "[weights]") {
  struct Known {
    const char* cfg;
    uint64_t bytes;
  };
  const Known known[] = {{"yolov3.cfg", 248007048}, {"yolov3-tiny.cfg", 35434956}};
  for (const Known& k : known) {
    for (const std::string& path : {darknet_cfg(k.cfg), source_path(std::string("cfg/") + k.cfg)}) {
      INFO(path);
      auto net = load_network_cfg(path, BuildOptions{});
      INFO((net.ok() ? std::string() : net.status().message()));
      REQUIRE(net.ok());
      CHECK(20 + 4 * uint64_t(layer_param_offsets(*net).back()) == k.bytes);
    }
  }
}

TEST_CASE("every shipped cfg validates against a generated or exactly sized file", "[weights]") {
  const std::string dir = tmp_dir("weights_shipped");
  const char* names[] = {"alexnet", "darknet19", "darknet53", "resnet50", "tiny", "yolov3-tiny", "yolov3"};
  for (const char* name : names) {
    const std::string cfg = source_path(std::string("cfg/") + name + ".cfg");
    INFO(cfg);
    auto net = load_network_cfg(cfg, BuildOptions{});
    INFO((net.ok() ? std::string() : net.status().message()));
    REQUIRE(net.ok());
    const std::vector<size_t> off = layer_param_offsets(*net);
    // Each layer's layout adds up to its parameter count, and the offsets add up.
    for (size_t i = 0; i < net->layers.size(); ++i) {
      size_t laid = 0;
      for (const ParamSegment& s : net->layers[i]->param_layout()) laid += s.count;
      CHECK(laid == net->layers[i]->param_floats());
      CHECK(off[i + 1] - off[i] == net->layers[i]->param_floats());
    }
    // Same parameter count as the reference cfg the official weights were made for.
    auto ref = load_network_cfg(darknet_cfg(std::string(name) + ".cfg"), BuildOptions{});
    REQUIRE(ref.ok());
    CHECK(layer_param_offsets(*ref).back() == off.back());

    const uint64_t bytes = 20 + 4 * uint64_t(off.back());
    const bool small = std::string(name) == "tiny" || std::string(name) == "yolov3-tiny";
    const std::string w = small ? generated_weights(cfg, std::string("shipped-") + name)
                                : sparse_weights(dir, std::string(name) + ".weights", bytes);
    REQUIRE_FALSE(w.empty());
    auto wf = WeightsFile::open(w);
    REQUIRE(wf.ok());
    CHECK(wf->file_bytes() == bytes);
    const Status st = wf->validate(*net);
    INFO(st.message());
    CHECK(st.ok());
    if (!small) ::unlink(w.c_str());
  }
}

TEST_CASE("every real model in ../shared/models validates against its cfg", "[weights]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models not present");
  struct Model {
    const char* cfg;
    const char* weights;
    size_t header_bytes;
  };
  const Model models[] = {
      {"models/yolo-fastest-1.1-coco/yolo-fastest-1.1.cfg", "models/yolo-fastest-1.1-coco/yolo-fastest-1.1.weights", 20},
      {"models/yolo-fastest-1.1-xl-coco/yolo-fastest-1.1-xl.cfg",
       "models/yolo-fastest-1.1-xl-coco/yolo-fastest-1.1-xl.weights", 20},
      {"models/mobilenetv2-yolov3-nano-coco/MobileNetV2-YOLOv3-Nano-coco.cfg",
       "models/mobilenetv2-yolov3-nano-coco/MobileNetV2-YOLOv3-Nano-coco.weights", 20},
      {"models/mobilenetv2-yolo-fastest-voc-v2/MobileNetV2-YOLO-Fastest-voc-v2.cfg",
       "models/mobilenetv2-yolo-fastest-voc-v2/MobileNetV2-YOLO-Fastest-voc-v2.weights", 20},
      {"models/yoloface-50k/yoloface-50k.cfg", "models/yoloface-50k/yoloface-50k.weights", 20},
      {"models/tiny-darknet-imagenet/tiny.cfg", "models/tiny-darknet-imagenet/tiny.weights", 16},  // old header
      {"models/mnist-lenet/mnist_lenet.cfg", "models/mnist-lenet/mnist_lenet.weights", 0},
      {"models/cifar-small/cifar_small.cfg", "models/cifar-small/cifar_small.weights", 0},
  };
  for (const Model& m : models) {
    const std::string cfg = shared_path(m.cfg), weights = shared_path(m.weights);
    INFO(m.cfg);
    REQUIRE_FALSE(cfg.empty());
    REQUIRE_FALSE(weights.empty());
    BuildOptions opts;
    opts.compat = Compat::kAuto;  // some were trained with AlexeyAB Darknet ([scale_channels])
    auto net = load_network_cfg(cfg, opts);
    INFO((net.ok() ? std::string() : net.status().message()));
    REQUIRE(net.ok());
    auto wf = WeightsFile::open(weights);
    INFO((wf.ok() ? std::string() : wf.status().message()));
    REQUIRE(wf.ok());
    if (m.header_bytes) CHECK(wf->header().bytes() == m.header_bytes);
    const Status st = wf->validate(*net);
    INFO(st.message());
    CHECK(st.ok());
    CHECK(wf->file_bytes() == wf->header().bytes() + 4 * uint64_t(layer_param_offsets(*net).back()));
    // The first and last layers with parameters read back finite values.
    const std::vector<size_t> off = layer_param_offsets(*net);
    for (size_t i = 0; i < net->layers.size(); ++i) {
      const size_t n = net->layers[i]->param_floats();
      if (!n) continue;
      std::vector<float> v(std::min<size_t>(n, 64));
      LayerParams lp(*wf, *net->layers[i], off[i]);
      CHECK(lp.read(n - v.size(), v.data(), v.size()).ok());
    }
  }
}

TEST_CASE("WeightsFile::read refuses a NaN or infinity at every position of a vector step and the tail, "
          "and keeps every finite value",
          "[weights]") {
  // The finite check runs 16 floats a step on ARM (weights.cpp): one bad value at each of the
  // first 16 positions, at a step past the first and in the tail (37 floats: two steps and 5).
  const std::string dir = tmp_dir("weights-finite");
  constexpr size_t kN = 37;
  const float bad[] = {std::nanf(""), -std::nanf(""), INFINITY, -INFINITY};
  // Finite extremes pass: the largest float, denormals, -0.
  const float edge[] = {FLT_MAX, -FLT_MAX, 1e-45f, -1e-45f, -0.f, 1e30f};
  std::vector<float> got(kN);
  for (size_t at = 0; at < kN; ++at)
    for (const float v : bad) {
      std::string b = header64(0, 2, 0, 0);
      for (size_t i = 0; i < kN; ++i) put_f32(b, i == at ? v : edge[i % 6]);
      auto wf = WeightsFile::open(write_file(dir, "bad.weights", b));
      REQUIRE(wf.ok());
      INFO("position " << at << " value " << v);
      CHECK_FALSE(wf->read(0, got.data(), kN, 0, "conv").ok());
    }
  std::string b = header64(0, 2, 0, 0);
  for (size_t i = 0; i < kN; ++i) put_f32(b, edge[i % 6]);
  auto wf = WeightsFile::open(write_file(dir, "edge.weights", b));
  REQUIRE(wf.ok());
  REQUIRE(wf->read(0, got.data(), kN, 0, "conv").ok());
  for (size_t i = 0; i < kN; ++i) CHECK(std::memcmp(&got[i], &edge[i % 6], 4) == 0);
}
