// Every named network on the OpenCL backend, driven by the table `mdfi models --porcelain`
// prints, so a newly named network is covered without touching this file. Each runs through the
// real binary on dog.jpg with generated weights, once with --backend cpu and once with
// --backend opencl (PoCL in CI), and every layer's output must be within 1e-4 (relative to the
// layer's largest value) of the CPU's. A layer the device has no kernel for runs on the host,
// and -v must say how many did. Networks over 10 GFLOP at their own size run at 160x160 to keep
// the group within minutes on a 2-core host (the layer sequence is the same).
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "backend.h"
#include "npy.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

struct Named {
  std::string name, task;
  double gflop = 0;
  size_t layers = 0;
};

std::vector<Named> named_networks() {
  const CommandResult r = run_command(mdfi_binary() + " models --porcelain");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<Named> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    Named n;
    std::string input;
    if (f >> n.name >> n.task >> input >> n.gflop) out.push_back(n);
  }
  return out;
}

}  // namespace

TEST_CASE("OpenCL: every named network (mdfi models) runs on the device within 1e-4 of the CPU per layer", "[opencl]") {
  if (!cl::compiled_in()) MDFI_SKIP(Need::kOpenCL, "built without OpenCL (MDFI_OPENCL=OFF)");
  if (!cl::list_devices().ok()) MDFI_SKIP(Need::kOpenCL, "no OpenCL platform");
  const std::vector<Named> nets = named_networks();
  REQUIRE(nets.size() >= 13);
  const std::string dir = tmp_dir("opencl_named");
  const std::string image = "/usr/share/darknet/data/dog.jpg";
  for (const Named& n : nets) {
    INFO(n.name << " (" << n.task << ", " << n.gflop << " GFLOP)");
    const std::string weights = dir + "/" + n.name + ".weights";
    auto g = run_command(mdfi_binary() + " gen-weights --net " + n.name + " -o '" + weights + "'");
    INFO(g.err);
    REQUIRE(g.exit_code == 0);
    const std::string size = n.gflop > 10 ? " --width 160 --height 160" : "";
    const std::string base = mdfi_binary() + " -v " + n.task + " --net " + n.name + " -w '" + weights + "'" + size;
    const std::string cpu_dir = dir + "/" + n.name + "_cpu", dev_dir = dir + "/" + n.name + "_opencl";
    auto cpu = run_command(base + " --backend cpu --dump-layers '" + cpu_dir + "' " + image);
    INFO(cpu.err.substr(cpu.err.size() > 1500 ? cpu.err.size() - 1500 : 0));
    REQUIRE(cpu.exit_code == 0);
    auto dev = run_command(base + " --backend opencl --dump-layers '" + dev_dir + "' " + image);
    INFO(dev.err.substr(dev.err.size() > 1500 ? dev.err.size() - 1500 : 0));
    REQUIRE(dev.exit_code == 0);
    // -v says how many layers the host ran ("N of M layers ran on the CPU").
    CHECK(dev.err.find("layers ran on the CPU") != std::string::npos);
    double worst = 0;
    int compared = 0;
    for (int i = 0;; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "/%03d.npy", i);
      auto a = read_npy(cpu_dir + name);
      if (!a.ok()) break;
      auto b = read_npy(dev_dir + name);
      INFO("layer " << i);
      REQUIRE(b.ok());
      REQUIRE(a->data.size() == b->data.size());
      bool finite = true;
      for (float v : b->data) finite = finite && std::isfinite(v);
      CHECK(finite);
      const double rel = relative_error(b->data, a->data);
      INFO("relative error " << rel);
      CHECK(rel <= 1e-4);
      worst = std::max(worst, rel);
      ++compared;
    }
    CHECK(compared > 10);
    // "OpenCL: N of M layers ran on the CPU", from -v's summary.
    const size_t at = dev.err.find("layers ran on the CPU"), from = dev.err.rfind("OpenCL:", at);
    const std::string host_line = from == std::string::npos ? "" : dev.err.substr(from, at + 21 - from);
    WARN(n.name << size << ": " << compared << " layers, worst relative error OpenCL vs CPU " << worst << "; "
                << host_line);
    std::system(("rm -rf '" + cpu_dir + "' '" + dev_dir + "' '" + weights + "'").c_str());
  }
}
