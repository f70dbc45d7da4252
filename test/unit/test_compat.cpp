// --compat auto: which AlexeyAB-only sections, keys and activations decide, naming the line.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "compat.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("compat auto: AlexeyAB-only keys, sections and activations decide, with the line", "[layers]") {
  auto resolve = [](const std::string& text) {
    auto cfg = parse_cfg_text(text, "c.cfg");
    REQUIRE(cfg.ok());
    return resolve_compat(*cfg, Compat::kAuto);
  };
  const std::string head = "[net]\nwidth=8\nheight=8\nchannels=3\n\n";
  CHECK(resolve(head + "[convolutional]\nfilters=2\ngroups=1\nactivation=leaky\n").compat == Compat::kPjreddie);
  auto c = resolve(head + "[convolutional]\nfilters=2\nactivation=mish\n");
  CHECK(c.compat == Compat::kAlexeyAB);
  CHECK(c.reason.find("c.cfg:8") != std::string::npos);
  CHECK(c.reason.find("mish") != std::string::npos);
  CHECK(resolve(head + "[yolo]\nnms_kind=greedynms\n").compat == Compat::kAlexeyAB);
  CHECK(resolve(head + "[route]\nlayers=-1\ngroups=2\n").compat == Compat::kAlexeyAB);
  CHECK(resolve("[net]\nletter_box=1\nwidth=8\nheight=8\nchannels=3\n").compat == Compat::kAlexeyAB);
  CHECK(resolve(head + "[scale_channels]\nfrom=-2\n").reason.find("[scale_channels]") != std::string::npos);
  auto cfg = parse_cfg_text(head + "[yolo]\nscale_x_y=1.1\n", "d.cfg");
  REQUIRE(cfg.ok());
  CHECK(resolve_compat(*cfg, Compat::kPjreddie).compat == Compat::kPjreddie);  // explicit wins

  // letter_box=1 keeps letterboxing under AlexeyAB; without it the input is resized.
  BuildOptions bo;
  bo.compat = Compat::kAuto;
  auto a = network_from_text("[net]\nwidth=8\nheight=8\nchannels=1\nletter_box=1\n\n[convolutional]\nfilters=1\n"
                             "activation=swish\n",
                             "lb.cfg");
  REQUIRE(a.ok());  // network_from_text builds with pjreddie: letterbox always on
  CHECK(a->net.letterbox);
}
