// --max-mem schedules (issue 19) against the default schedule, through the CLI: at the smallest
// budget the planner accepts and halfway to the default peak, every layer mdfi still produces
// whole (all but the inside of banded groups) is bit-identical to the default run's, and so are
// the 50 most confident results (generated weights give a detector more results than
// post-processing keeps in the smaller arena; it keeps the most confident).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "npy.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

size_t bytes_in(const std::string& text, const std::string& after) {
  const size_t at = text.find(after);
  if (at == std::string::npos) return 0;
  const size_t open = text.find('(', at);
  return open == std::string::npos ? 0 : size_t(std::strtoull(text.c_str() + open + 1, nullptr, 10));
}

// Compares the layer dumps (NNN.npy) under `tag` with the default run's under `dir`/default, bit
// for bit, for layers [0, before); a layer missing from `tag` was inside a banded group (only rows
// of it ever existed). Returns {compared, missing}.
std::pair<int, int> compare_dumps(const std::string& dir, const std::string& tag, int before = 1 << 30) {
  int compared = 0, missing = 0;
  for (int i = 0; i < before; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "/%03d.npy", i);
    if (!exists(dir + "/default" + name)) break;
    if (!exists(tag + name)) {
      ++missing;
      continue;
    }
    auto a = read_npy(tag + name);
    auto b = read_npy(dir + "/default" + name);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    INFO("layer " << i);
    CHECK(a->data.size() == b->data.size());
    CHECK(std::memcmp(a->data.data(), b->data.data(), a->data.size() * sizeof(float)) == 0);
    ++compared;
  }
  return {compared, missing};
}

void check_schedules(const std::string& net_name, const char* command) {
  const std::string cfg = source_path("cfg/" + net_name + ".cfg");
  const std::string image = "/usr/share/darknet/data/dog.jpg";
  const std::string weights = generated_weights(cfg, net_name);
  REQUIRE(!weights.empty());
  const std::string dir = tmp_dir("schedule_parity_" + net_name);
  // With --winograd off a schedule's bands and blocks run the im2col + SGEMM kernels: compared
  // with the layer-at-a-time run of those kernels, bit for bit (Winograd inside and outside the
  // bands: test_schedule.cpp). (The default's
  // Winograd layers agree with them within the parity suite's 1e-4, tested there.)
  const std::string model = " --winograd off --cfg '" + cfg + "' -w '" + weights + "' '" + image + "'";
  auto base = run_command(mdfi_binary() + " -q " + command + model + " --dump-layers '" + dir + "/default' -o '" + dir +
                          "/default.txt'");
  INFO(base.err);
  REQUIRE(base.exit_code == 0);
  auto plan = run_command(mdfi_binary() + " plan --cfg '" + cfg + "' '" + image + "'");
  auto refused = run_command(mdfi_binary() + " plan --cfg '" + cfg + "' --max-mem 1B '" + image + "'");
  CHECK(refused.exit_code == 4);  // the documented budget exit code, naming the smallest
  const size_t smallest = bytes_in(refused.err, "the smallest is");
  const size_t whole = bytes_in(plan.out, "predicted peak with this image");
  INFO(refused.err);
  REQUIRE(smallest > 0);
  REQUIRE(whole > smallest);
  for (size_t budget : {smallest, (smallest + whole) / 2}) {
    INFO("--max-mem " << budget << "B");
    const std::string tag = dir + "/b" + std::to_string(budget);
    auto r = run_command(mdfi_binary() + " -q " + command + model + " --max-mem " + std::to_string(budget) +
                         "B --dump-layers '" + tag + "' -o '" + tag + ".txt' --mem-report='" + tag + ".json'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(slurp(tag + ".txt") == slurp(dir + "/default.txt"));
    const auto [compared, missing] = compare_dumps(dir, tag);
    CHECK(compared > missing);
    // The whole run, post-processing included, stayed within the budget.
    const std::string report = slurp(tag + ".json");
    const size_t at = report.find("\"peak_bytes\": ");
    REQUIRE(at != std::string::npos);
    CHECK(std::strtoull(report.c_str() + at + 14, nullptr, 10) <= budget);
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace

TEST_CASE("--max-mem schedules reproduce the default layer by layer: yolov3-tiny", "[parity]") {
  check_schedules("yolov3-tiny", "detect --top 50");
}
TEST_CASE("--max-mem schedules reproduce the default layer by layer: alexnet", "[parity]") {
  check_schedules("alexnet", "classify --top 1");
}

namespace {

// The layers a `mdfi plan` output's "winograd:" line names ("F(4x4,3x3) in layers 2 4 8s; ...").
// The "winograd:" line of `mdfi plan`: each Winograd layer with its tile (F(4x4): 4, F(2x2): 2).
std::vector<std::pair<int, int>> winograd_layers(const std::string& plan_out) {
  std::vector<std::pair<int, int>> v;
  const size_t at = plan_out.find("\nwinograd: ");
  if (at == std::string::npos) return v;
  const std::string line = plan_out.substr(at + 11, plan_out.find('\n', at + 1) - at - 11);
  for (size_t i = 0; i < line.size();) {
    const size_t f = line.find("F(", i), w = line.find("layers ", i);
    if (f == std::string::npos || w == std::string::npos) break;
    const int tile = std::atoi(line.c_str() + f + 2);
    i = w + 7;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) {
      v.push_back({std::atoi(line.c_str() + i), tile});
      while (i < line.size() && line[i] != ' ' && line[i] != ';') ++i;
      if (i < line.size() && line[i] == ' ') ++i;
    }
  }
  return v;
}

}  // namespace

TEST_CASE("--max-mem with Winograd on: a band group's Winograd layers give the default's bits", "[parity]") {
  // yolov3-tiny with the default's Winograd tiles, at the first budget (eighths from the smallest
  // to the default peak) whose schedule runs a layer by Winograd inside a band group: every whole
  // layer before the first one the default runs by Winograd and the schedule does not is
  // bit-identical to the default run's.
  const std::string cfg = source_path("cfg/yolov3-tiny.cfg");
  const std::string image = "/usr/share/darknet/data/dog.jpg";
  const std::string weights = generated_weights(cfg, "yolov3-tiny");
  REQUIRE(!weights.empty());
  const std::string dir = tmp_dir("schedule_parity_winograd");
  const std::string net = " -j 2 --cfg '" + cfg + "' '" + image + "'";  // planned as run: two threads
  const std::string model = net + " -w '" + weights + "'";
  auto base = run_command(mdfi_binary() + " -q detect --top 50" + model + " --dump-layers '" + dir + "/default'");
  REQUIRE(base.exit_code == 0);
  auto plan = run_command(mdfi_binary() + " plan" + net);
  auto refused = run_command(mdfi_binary() + " plan" + net + " --max-mem 1B");
  const size_t smallest = bytes_in(refused.err, "the smallest is");
  const size_t whole = bytes_in(plan.out, "predicted peak with this image");
  REQUIRE(smallest > 0);
  REQUIRE(whole > smallest);
  const std::vector<std::pair<int, int>> default_wino = winograd_layers(plan.out);
  REQUIRE(!default_wino.empty());
  size_t budget = 0;
  std::vector<std::pair<int, int>> kept;
  for (int k = 1; k < 8 && !budget; ++k) {
    const size_t b = smallest + (whole - smallest) * size_t(k) / 8;
    auto p = run_command(mdfi_binary() + " plan" + net + " --max-mem " + std::to_string(b) + "B");
    REQUIRE(p.exit_code == 0);
    if (p.out.find("in its group's bands") == std::string::npos) continue;
    budget = b;
    kept = winograd_layers(p.out);
  }
  REQUIRE(budget > 0);  // some budget between the smallest and the default runs Winograd in a group
  INFO("--max-mem " << budget << "B");
  // A layer run by GEMM, or by Winograd with another tile (SchedNode::small_tile), has other bits.
  int first_changed = 1 << 30;
  for (const auto& l : default_wino)
    if (std::find(kept.begin(), kept.end(), l) == kept.end()) first_changed = std::min(first_changed, l.first);
  const std::string tag = dir + "/b";
  auto r = run_command(mdfi_binary() + " -q detect --top 50" + model + " --max-mem " + std::to_string(budget) +
                       "B --dump-layers '" + tag + "' --mem-report='" + tag + ".json'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // The plan counts what the Winograd band steps hold: the run's peak is the predicted one.
  const std::string report = slurp(tag + ".json");
  const size_t at = report.find("\"peak_bytes\": "), pat = report.find("\"predicted_peak_bytes\": ");
  REQUIRE(at != std::string::npos);
  REQUIRE(pat != std::string::npos);
  const size_t peak = std::strtoull(report.c_str() + at + 14, nullptr, 10);
  CHECK(peak <= budget);
  CHECK(peak == std::strtoull(report.c_str() + pat + 24, nullptr, 10));
  CHECK(compare_dumps(dir, tag, first_changed).first > 0);
  std::system(("rm -rf '" + dir + "'").c_str());
}
