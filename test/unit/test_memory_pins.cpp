// Regression guard: the predicted peak heap of each named network is pinned (within 3%), so
// memory cannot silently grow. The figures are `mdfi plan --net NAME` on the day they were set;
// change them only with a reason in the commit message. They are planned for one thread (each
// thread's scratch is part of the plan, and the streamed Winograd layers hold one filter panel per
// thread: AlexNet's peak moves by 4% per thread), so the pins hold on any host.
#include <catch2/catch.hpp>

#include <cmath>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "plan.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("predicted peaks of the named networks are pinned", "[memory]") {
  struct Pin {
    const char* net;
    double bytes;
  };
  const Pin pins[] = {{"yolov3", 33835264},    {"yolov3-tiny", 13844480}, {"alexnet", 4243456},
                      {"tiny", 4014080},       {"darknet19", 19501056},   {"darknet53", 19894272},
                      {"resnet50", 12582912}};
#if defined(_OPENMP)
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  for (const Pin& p : pins) {
    auto net = load_network_cfg(source_path(std::string("cfg/") + p.net + ".cfg"), BuildOptions{});
    REQUIRE(net.ok());
    const Plan plan = make_plan(*net);
    INFO(p.net << ": predicted " << plan.peak_bytes << " bytes, pinned " << p.bytes);
    CHECK(std::fabs(double(plan.peak_bytes) - p.bytes) <= 0.03 * p.bytes);
  }
#if defined(_OPENMP)
  omp_set_num_threads(threads);
#endif
}

TEST_CASE("the memory targets of the named networks hold in the plan", "[memory]") {
  struct Target {
    const char* net;
    double mb;
  };
  for (Target t : {Target{"yolov3", 40}, Target{"yolov3-tiny", 25}, Target{"alexnet", 16}, Target{"tiny", 8},
                   Target{"darknet53", 25}, Target{"resnet50", 18}}) {
    auto net = load_network_cfg(source_path(std::string("cfg/") + t.net + ".cfg"), BuildOptions{});
    REQUIRE(net.ok());
    INFO(t.net);
    CHECK(double(make_plan(*net).peak_bytes) / 1e6 <= t.mb);
  }
}
