// The allocation counter: per-category current and peak bytes, peak attribution to a phase,
// and failure injection.
#include <catch2/catch.hpp>

#include "memory.h"

using namespace mdfi;

TEST_CASE("memory tracker counts categories and the peak", "[memory]") {
  MemoryTracker t;
  t.set_phase(3);
  {
    auto a = Buffer::make(t, 1000, MemCategory::kActivations, "a");
    REQUIRE(a.ok());
    auto w = Buffer::make(t, 250, MemCategory::kWeights, "w");
    REQUIRE(w.ok());
    CHECK(t.current().of(MemCategory::kActivations) == 4000);
    CHECK(t.current().total() == 5000);
    t.set_phase(4);
    w->reset();
    CHECK(t.current().total() == 4000);
  }
  CHECK(t.current().total() == 0);
  CHECK(t.peak() == 5000);
  CHECK(t.peak_phase() == 3);
  CHECK(t.at_peak().of(MemCategory::kWeights) == 1000);
  CHECK(t.category_peak(MemCategory::kActivations) == 4000);
}

TEST_CASE("memory tracker fails the Nth allocation on request", "[memory]") {
  MemoryTracker t;
  t.fail_nth_allocation(2);
  auto a = Buffer::make(t, 10, MemCategory::kOther, "first");
  CHECK(a.ok());
  auto b = Buffer::make(t, 10, MemCategory::kOther, "second");
  REQUIRE(!b.ok());
  CHECK(b.status().kind() == ErrorKind::kOutOfMemory);
  CHECK(b.status().message().find("second") != std::string::npos);
  auto c = Buffer::make(t, 10, MemCategory::kOther, "third");
  CHECK(c.ok());
  CHECK(t.current().total() == 80);
}
