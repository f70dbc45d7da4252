// I/O faults while a run is in progress: the weights file is truncated between validation and
// the run, or after the first layers have already run, or every read starts failing (the file
// descriptor is swapped for a directory, so read() returns EISDIR: a real kernel read error
// through the real code path). Each must end in an error naming the file and the layer that
// could not get its parameters - never garbage output or a crash - with every byte freed.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>

#include "executor.h"
#include "image.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

namespace {

struct Fixture {
  mdfi::Network net;
  mdfi::Plan plan;
  std::string weights;  // a private copy the test may damage
};

Fixture make_fixture(const std::string& name) {
  const std::string cfg = mdfi::test::source_path("test/bad/good/tiny-yolo.cfg");
  auto net = mdfi::load_network_cfg(cfg, mdfi::BuildOptions{});
  REQUIRE(net.ok());
  Fixture f{std::move(*net), {}, mdfi::test::tmp_dir(name) + "/copy.weights"};
  f.plan = mdfi::make_plan(f.net);
  const std::string good = mdfi::test::generated_weights(cfg, "bad-tiny-yolo");
  REQUIRE(!good.empty());
  std::ifstream in(good, std::ios::binary);
  std::ofstream(f.weights, std::ios::binary) << in.rdbuf();
  return f;
}

mdfi::Buffer make_input(const mdfi::Network& net, mdfi::MemoryTracker& mem) {
  auto b = mdfi::Buffer::make(mem, net.input_shape().count(), mdfi::MemCategory::kActivations, "input");
  REQUIRE(b.ok());
  for (size_t i = 0; i < b->size(); ++i) b->data()[i] = float(i % 13) / 13.f;
  return std::move(*b);
}

// The descriptor this process holds open on `path` (found through /proc/self/fd).
int fd_of(const std::string& path) {
  char want[PATH_MAX];
  REQUIRE(::realpath(path.c_str(), want) != nullptr);
  DIR* d = ::opendir("/proc/self/fd");
  REQUIRE(d != nullptr);
  int found = -1;
  while (dirent* e = ::readdir(d)) {
    char target[PATH_MAX] = {};
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
    if (n > 0 && std::string(target, size_t(n)) == want) found = std::atoi(e->d_name);
  }
  ::closedir(d);
  return found;
}

}  // namespace

TEST_CASE("weights truncated after validation: the first layer that cannot read is named", "[robustness]") {
  Fixture f = make_fixture("io-truncate-before");
  auto wf = mdfi::WeightsFile::open(f.weights);
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(f.net).ok());
  const std::vector<size_t> off = mdfi::layer_param_offsets(f.net);
  // Cut inside layer 2's parameters: layers 0 and 1 run, layer 2 fails.
  REQUIRE(::truncate(f.weights.c_str(), off_t(20 + 4 * (off[2] + 10))) == 0);
  mdfi::MemoryTracker mem;
  {
    auto out = mdfi::run_network(f.net, f.plan, *wf, make_input(f.net, mem), mem);
    REQUIRE(!out.ok());
    INFO(out.status().message());
    CHECK(out.status().kind() == mdfi::ErrorKind::kWeights);
    CHECK(out.status().message().find(f.weights) != std::string::npos);
    CHECK(out.status().message().find("layer 2 [conv]") != std::string::npos);
    CHECK(out.status().message().find("truncated") != std::string::npos);
  }
  CHECK(mem.current().total() == 0);
}

TEST_CASE("weights truncated while the run is in progress: the error names the layer", "[robustness]") {
  Fixture f = make_fixture("io-truncate-during");
  auto wf = mdfi::WeightsFile::open(f.weights);
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(f.net).ok());
  mdfi::MemoryTracker mem;
  mdfi::RunHooks hooks;
  int layers_done = 0;
  hooks.on_layer = [&](const mdfi::LayerRunStats& s) {
    ++layers_done;
    if (s.index == 0) REQUIRE(::truncate(f.weights.c_str(), 20) == 0);  // another process cut it
  };
  {
    auto out = mdfi::run_network(f.net, f.plan, *wf, make_input(f.net, mem), mem, hooks);
    REQUIRE(!out.ok());
    INFO(out.status().message());
    CHECK(layers_done < int(f.net.layers.size()));
    CHECK(out.status().message().find("layer 2 [conv]") != std::string::npos);  // layer 1 is a maxpool
  }
  CHECK(mem.current().total() == 0);
}

TEST_CASE("a read error from the weights file while running gives an I/O error naming the layer", "[robustness]") {
  Fixture f = make_fixture("io-read-error");
  auto wf = mdfi::WeightsFile::open(f.weights);
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(f.net).ok());
  const int fd = fd_of(f.weights);
  REQUIRE(fd >= 0);
  mdfi::MemoryTracker mem;
  mdfi::RunHooks hooks;
  hooks.on_layer = [&](const mdfi::LayerRunStats& s) {
    if (s.index != 0) return;
    // From now on every read() on the weights descriptor fails with EISDIR.
    const int dir = ::open("/", O_RDONLY | O_DIRECTORY);
    REQUIRE(dir >= 0);
    REQUIRE(::dup2(dir, fd) == fd);
    ::close(dir);
  };
  {
    auto out = mdfi::run_network(f.net, f.plan, *wf, make_input(f.net, mem), mem, hooks);
    REQUIRE(!out.ok());
    INFO(out.status().message());
    CHECK(out.status().kind() == mdfi::ErrorKind::kIo);
    CHECK(out.status().message().find("layer 2 [conv]") != std::string::npos);
    const std::string& msg = out.status().message();
    CHECK((msg.find("read error") != std::string::npos || msg.find("seek failed") != std::string::npos));
  }
  CHECK(mem.current().total() == 0);
}
