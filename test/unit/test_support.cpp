// Tests of the test helpers themselves: a comparison that meets a NaN or an Inf must fail, and
// every test case must belong to a ctest group (a test outside all groups never runs in ctest).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "support.h"

using namespace mdfi::test;

TEST_CASE("relative_error fails on a NaN or an Inf in either operand, at the first, a middle and the last element",
          "[support]") {
  const std::vector<float> good = {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f};
  REQUIRE(relative_error(good, good) == 0);
  const float bad_values[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity()};
  for (float bad : bad_values)
    for (size_t pos : {size_t(0), good.size() / 2, good.size() - 1}) {
      std::vector<float> broken = good;
      broken[pos] = bad;
      std::vector<double> broken_ref(broken.begin(), broken.end()), good_ref(good.begin(), good.end());
      INFO("value " << bad << " at " << pos);
      // Result, and the comparison every test makes with it, in both operand orders and both
      // reference types (the double-reference overload is what the GEMM tests use).
      for (double rel : {relative_error(broken, good), relative_error(good, broken), relative_error(broken, good_ref),
                         relative_error(good, broken_ref), relative_error(broken, broken)}) {
        CHECK(std::isinf(rel));
        CHECK_FALSE(rel <= 1e30);
      }
    }
  // A finite mismatch in the middle is measured, not hidden.
  std::vector<float> off = good;
  off[3] = 4.5f;
  CHECK(relative_error(off, good) == Approx(0.5 / 7));
  CHECK(std::isinf(relative_error(good, std::vector<float>(good.begin(), good.end() - 1))));
  CHECK(relative_error(std::vector<float>(3, 0.f), std::vector<float>(3, 0.f)) == 0);
}

TEST_CASE("every test case is in a ctest group", "[support]") {
  // MDFI_TEST_GROUPS: the group names of test/CMakeLists.txt, ','-separated.
  std::set<std::string> groups;
  std::stringstream ss(MDFI_TEST_GROUPS);
  for (std::string g; std::getline(ss, g, ',');) groups.insert("[" + g + "]");
  REQUIRE(groups.size() >= 10);
  const auto& all = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
  int checked = 0;
  for (const Catch::TestCase& tc : all) {
    if (tc.isHidden()) continue;  // [.]: run by hand only, never in ctest
    bool grouped = false;
    for (const std::string& tag : tc.getTestCaseInfo().tags) grouped = grouped || groups.count("[" + tag + "]") > 0;
    INFO(tc.getTestCaseInfo().name << " has tags " << tc.getTestCaseInfo().tagsAsString());
    CHECK(grouped);
    ++checked;
  }
  CHECK(checked > 100);
}
