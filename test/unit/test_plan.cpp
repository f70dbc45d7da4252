// The planner is pure: these cases are computed by hand, as TFLite Micro tests its planner.
#include <catch2/catch.hpp>

#include "plan.h"
#include "support.h"

using namespace mdfi;

TEST_CASE("plan: lifetimes, aliasing and peak computed by hand", "[plan]") {
  // input(100) -> 0 conv(200, w10, ws5) -> 1 (50) -> 2 route[1,0] (30) -> 3 dropout -> 4 (10)
  std::vector<PlanNode> nodes(5);
  nodes[0] = {200, 10, 5, {-1}, false, false};
  nodes[1] = {50, 0, 0, {0}, false, false};
  nodes[2] = {30, 0, 0, {1, 0}, false, false};
  nodes[3] = {30, 0, 0, {2}, true, false};
  nodes[4] = {10, 0, 0, {3}, false, false};
  const Plan p = plan_nodes(100, nodes);

  CHECK(p.last_use[0] == 0);  // the input dies after layer 0
  CHECK(p.last_use[1] == 2);  // layer 0 is read by the route
  CHECK(p.last_use[2] == 2);
  CHECK(p.last_use[3] == 4);  // the route's buffer lives on through the dropout alias
  CHECK(p.last_use[5] == 5);  // the final output survives the run

  CHECK(p.layers[0].peak_bytes == 100 + 200 + 10 + 5);
  CHECK(p.layers[0].frees == std::vector<int>{-1});
  CHECK(p.layers[0].live_after == 200);
  CHECK(p.layers[1].peak_bytes == 250);
  CHECK(p.layers[2].peak_bytes == 280);
  CHECK(p.layers[2].frees == std::vector<int>{0, 1});
  CHECK(p.layers[2].live_after == 30);
  CHECK(p.layers[3].buffer == 2);
  CHECK(p.layers[3].output_bytes == 0);
  CHECK(p.layers[3].peak_bytes == 30);
  CHECK(p.layers[4].peak_bytes == 40);
  CHECK(p.layers[4].frees == std::vector<int>{2});
  CHECK(p.peak_bytes == 315);
  CHECK(p.peak_layer == 0);
}

TEST_CASE("plan: detection heads are kept to the end", "[plan]") {
  std::vector<PlanNode> nodes(4);
  nodes[0] = {40, 0, 0, {-1}, false, false};
  nodes[1] = {8, 0, 0, {0}, false, true};  // head
  nodes[2] = {20, 0, 0, {0}, false, false};
  nodes[3] = {4, 0, 0, {2}, false, true};   // head
  const Plan p = plan_nodes(16, nodes);
  CHECK(p.last_use[2] == 4);
  CHECK(p.last_use[4] == 4);
  CHECK(p.layers[2].peak_bytes == 40 + 8 + 20);
  CHECK(p.layers[2].frees == std::vector<int>{0});
  CHECK(p.layers[3].live_after == 8 + 4);
}

TEST_CASE("plan: a buffer nobody reads dies right after its layer", "[plan]") {
  std::vector<PlanNode> nodes(3);
  nodes[0] = {10, 0, 0, {-1}, false, false};
  nodes[1] = {1000, 0, 0, {0}, false, false};  // dead branch
  nodes[2] = {5, 0, 0, {0}, false, false};     // route back to 0 only
  const Plan p = plan_nodes(10, nodes);
  CHECK(p.layers[1].frees == std::vector<int>{1});
  CHECK(p.layers[2].live_before == 10);
}
