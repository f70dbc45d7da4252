// The planner is pure: these cases are computed by hand, as TFLite Micro tests its planner.
#include <catch2/catch.hpp>

#include <cstring>

#include "arena_plan.h"
#include "executor.h"
#include "plan.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

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

TEST_CASE("plan: a route's sources written in place into it, where the peak and arenas allow", "[plan]") {
  // input(100) -> 0 (200) -> 1 (300) -> 2 route[0,1] (500) -> 3 (10)
  std::vector<PlanNode> nodes(4);
  nodes[0] = {200, 0, 0, {-1}, false, false};
  nodes[1] = {300, 0, 0, {0}, false, false};
  nodes[2] = {500, 0, 0, {0, 1}, false, false, true};
  nodes[3] = {10, 0, 0, {2}, false, false};
  const Plan copy = plan_nodes(100, nodes);
  CHECK(copy.peak_bytes == 200 + 300 + 500);  // the copy beside both sources
  CHECK(copy.layers[2].alloc == 2);
  const Plan p = plan_nodes(100, nodes, true);
  CHECK(p.layers[0].view_of == 2);
  CHECK(p.layers[0].view_offset == 0);
  CHECK(p.layers[0].alloc == 2);  // the route's buffer, made with its first source
  CHECK(p.layers[0].output_bytes == 500);
  CHECK(p.layers[0].peak_bytes == 100 + 500);
  CHECK(p.layers[1].view_of == 2);
  CHECK(p.layers[1].view_offset == 200 / sizeof(float));
  CHECK(p.layers[1].alloc == -1);
  CHECK(p.layers[1].output_bytes == 0);
  CHECK(p.layers[2].in_place);
  CHECK(p.layers[2].alloc == -1);
  CHECK(p.layers[2].frees == std::vector<int>{0, 1});  // the views: no bytes
  CHECK(p.layers[2].live_after == 500);
  CHECK(p.layers[3].frees == std::vector<int>{2});
  CHECK(p.layers[3].live_after == 10);
  CHECK(p.peak_bytes == 600);
  CHECK(p.last_use[3] == 3);
  const ArenaLayout a = plan_arena(p);
  CHECK(a.output_offset[0] != ArenaLayout::kNone);  // the route's block, from layer 0 on
  CHECK(a.output_offset[1] == ArenaLayout::kNone);
  CHECK(a.output_offset[2] == ArenaLayout::kNone);

  // A large layer between the sources: the route's buffer made early would raise the peak.
  std::vector<PlanNode> wide(5);
  wide[0] = {10, 0, 0, {-1}, false, false};
  wide[1] = {1000, 500, 0, {0}, false, false};  // its weights make it the peak
  wide[2] = {10, 0, 0, {1}, false, false};
  wide[3] = {20, 0, 0, {0, 2}, false, false, true};
  wide[4] = {10, 0, 0, {3}, false, false};
  const Plan w = plan_nodes(100, wide, true);
  CHECK(w.layers[0].view_of == -1);
  CHECK(!w.layers[3].in_place);
  CHECK(w.peak_bytes == plan_nodes(100, wide).peak_bytes);

  // Not in place: a source listed twice, a kept output; a source already in an earlier route.
  std::vector<PlanNode> odd(6);
  odd[0] = {40, 0, 0, {-1}, false, false};
  odd[1] = {40, 0, 0, {0}, false, true};  // a head, kept to the end
  odd[2] = {80, 0, 0, {0, 0}, false, false, true};
  odd[3] = {80, 0, 0, {0, 1}, false, false, true};
  odd[4] = {40, 0, 0, {2}, false, false};
  odd[5] = {80, 0, 0, {4, 2}, false, false, true};
  const Plan o = plan_nodes(100, odd, true);
  CHECK(!o.layers[2].in_place);
  CHECK(!o.layers[3].in_place);
  CHECK(o.layers[0].view_of == -1);
  CHECK(o.layers[1].view_of == -1);
  CHECK(o.layers[5].in_place == (o.layers[4].view_of == 5));
}

TEST_CASE("plan: a channel-group route is a view of its source's part", "[plan]") {
  // input(100) -> 0 (400) -> 1 slice of 0 (200, offset 50 floats) -> 2 (40) -> 3 route[2,0] (440) -> 4 (10)
  std::vector<PlanNode> nodes(5);
  nodes[0] = {400, 0, 0, {-1}, false, false};
  nodes[1] = {200, 0, 0, {0}, false, false};
  nodes[1].slice = true;
  nodes[1].slice_offset = 50;
  nodes[2] = {40, 0, 0, {1}, false, false};
  nodes[3] = {440, 0, 0, {2, 0}, false, false, true};
  nodes[4] = {10, 0, 0, {3}, false, false};
  const Plan p = plan_nodes(100, nodes, true);
  CHECK(p.layers[1].view_of == 0);  // the slice: part of layer 0's output
  CHECK(p.layers[1].view_offset == 50);
  CHECK(p.layers[1].in_place);
  CHECK(p.layers[1].output_bytes == 0);
  CHECK(p.layers[0].view_of == 3);  // and layer 0 itself written into the route
  CHECK(p.layers[0].view_offset == 40 / sizeof(float));
  CHECK(p.layers[2].view_of == 3);
  CHECK(p.layers[0].alloc == 3);
  CHECK(p.layers[0].output_bytes == 440);
  CHECK(p.layers[3].in_place);
  CHECK(p.peak_bytes == 100 + 440);
  CHECK(plan_nodes(100, nodes).peak_bytes == 400 + 40 + 440);
}

TEST_CASE("routes written in place give the copies' outputs bit for bit", "[plan]") {
  // Concatenations of two and three sources, a source in two routes, a one-source route, a
  // route of routes, then a head: run with and without the sources written in place.
  const std::string cfg = net_section(24, 20, 3) +
                          "[convolutional]\nfilters=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n"   // 0
                          "[convolutional]\nfilters=6\nsize=3\nstride=1\npad=1\nactivation=leaky\n"   // 1
                          "[route]\nlayers=-1,-2\n"                                                   // 2: 1, 0
                          "[convolutional]\nfilters=5\nsize=1\nstride=1\npad=0\nactivation=leaky\n"   // 3
                          "[route]\nlayers=-1,-3,0\n"                                                 // 4: 3, 1, 0
                          "[maxpool]\nsize=2\nstride=2\n"                                             // 5
                          "[route]\nlayers=-1\n"                                                      // 6
                          "[convolutional]\nfilters=4\nsize=3\nstride=1\npad=1\nactivation=leaky\n"   // 7
                          "[route]\nlayers=-1,-2,-3\n"                                                // 8: 7, 6, 5
                          "[convolutional]\nfilters=7\nsize=1\nstride=1\npad=0\nactivation=linear\n";  // 9
  auto net = network_from_text(cfg, "in_place.cfg");
  REQUIRE(net.ok());
  const std::string dir = tmp_dir("plan_in_place");
  write_weights_file(dir + "/w.weights", random_floats(net->param_floats(), 5));
  const std::vector<float> input = uniform_input(net->input_shape().count(), 6);
  const Plan in_place = make_plan(*net);
  int views = 0;
  for (const LayerPlan& lp : in_place.layers) views += lp.view_of >= 0;
  CHECK(views >= 3);
  const CollectedRun a = run_collect(*net, dir + "/w.weights", input);
  net->concat_in_place = false;
  const Plan copies = make_plan(*net);
  for (const LayerPlan& lp : copies.layers) CHECK(lp.view_of == -1);
  CHECK(in_place.peak_bytes <= copies.peak_bytes);
  const CollectedRun b = run_collect(*net, dir + "/w.weights", input);
  for (size_t i = 0; i < a.layers.size(); ++i) {
    INFO("layer " << i);
    REQUIRE(a.layers[i].size() == b.layers[i].size());
    CHECK(std::memcmp(a.layers[i].data(), b.layers[i].data(), a.layers[i].size() * sizeof(float)) == 0);
  }
  // AlexeyAB's channel-group routes (yolov4-tiny's CSP blocks): each a view of its source's half.
  const std::string csp = net_section(24, 20, 3) +
                          "[convolutional]\nfilters=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n"  // 0
                          "[route]\nlayers=-1\ngroups=2\ngroup_id=1\n"                                 // 1: 0's second half
                          "[convolutional]\nfilters=4\nsize=3\nstride=1\npad=1\nactivation=leaky\n"  // 2
                          "[route]\nlayers=-1\ngroups=2\ngroup_id=0\n"                                 // 3: 2's first half
                          "[convolutional]\nfilters=4\nsize=1\nstride=1\npad=0\nactivation=leaky\n"  // 4
                          "[route]\nlayers=-1,-3,0\n"                                                    // 5: 4, 2, 0
                          "[convolutional]\nfilters=6\nsize=1\nstride=1\npad=0\nactivation=linear\n";  // 6
  write_file(dir + "/csp.cfg", csp);
  BuildOptions ab;
  ab.compat = Compat::kAlexeyAB;
  auto csp_net = load_network_cfg(dir + "/csp.cfg", ab);
  REQUIRE(csp_net.ok());
  write_weights_file(dir + "/csp.weights", random_floats(csp_net->param_floats(), 7));
  const std::vector<float> csp_in = uniform_input(csp_net->input_shape().count(), 8);
  const Plan csp_plan = make_plan(*csp_net);
  CHECK(csp_plan.layers[1].view_of == 0);
  CHECK(csp_plan.layers[3].view_of == 2);
  const CollectedRun c = run_collect(*csp_net, dir + "/csp.weights", csp_in);
  csp_net->concat_in_place = false;
  const CollectedRun d = run_collect(*csp_net, dir + "/csp.weights", csp_in);
  for (size_t i = 0; i < c.layers.size(); ++i) {
    INFO("csp layer " << i);
    REQUIRE(c.layers[i].size() == d.layers[i].size());
    CHECK(std::memcmp(c.layers[i].data(), d.layers[i].data(), c.layers[i].size() * sizeof(float)) == 0);
  }
}
