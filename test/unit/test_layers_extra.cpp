// Hand-computed tiny cases for the layers and options added for zoo and AlexeyAB coverage: each
// runs a few-value network through the real executor with explicit weights and checks every
// output against arithmetic done here, plus compat resolution and the DIoU NMS.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include "compat.h"
#include "detect.h"
#include "executor.h"
#include "layer_registry.h"
#include "layers/batchnorm.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// Builds `cfg` (with the given compat), writes `params` as its weights file and runs `input`;
// returns every layer's output.
std::vector<std::vector<float>> run_tiny(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                                         const std::vector<float>& input, Compat compat = Compat::kPjreddie) {
  const std::string dir = tmp_dir("extra_" + tag);
  std::ofstream(dir + "/t.cfg") << cfg;
  BuildOptions bo;
  bo.compat = compat;
  auto net = load_network_cfg(dir + "/t.cfg", bo);
  INFO((net.ok() ? std::string() : net.status().message()));
  REQUIRE(net.ok());
  REQUIRE(net->param_floats() == params.size());
  write_weights_file(dir + "/t.weights", params);
  auto wf = WeightsFile::open(dir + "/t.weights");
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(*net).ok());
  REQUIRE(input.size() == net->input_shape().count());
  MemoryTracker mem;
  auto in = Buffer::make(mem, input.size(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  std::memcpy(in->data(), input.data(), input.size() * sizeof(float));
  std::vector<std::vector<float>> outs(net->layers.size());
  RunHooks hooks;
  hooks.on_output = [&outs](const Layer& l, const float* o) {
    outs[size_t(l.index)].assign(o, o + l.out.count());
    return Status::Ok();
  };
  auto r = run_network(*net, make_plan(*net), *wf, std::move(*in), mem, hooks);
  INFO((r.ok() ? std::string() : r.status().message()));
  REQUIRE(r.ok());
  return outs;
}

std::string net_head(int w, int h, int c) {
  return "[net]\nwidth=" + std::to_string(w) + "\nheight=" + std::to_string(h) + "\nchannels=" + std::to_string(c) + "\n\n";
}

void check_close(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("value " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol * std::max(1.f, std::fabs(want[i])));
  }
}

}  // namespace

TEST_CASE("batchnorm: normalises with pjreddie's or AlexeyAB's epsilon", "[layers]") {
  // 2 channels of 2 values; params: scales, means, variances.
  const std::string cfg = net_head(2, 1, 2) + "[batchnorm]\n";
  const std::vector<float> params = {2, 0.5f, 1, -1, 4, 1e-4f};
  const std::vector<float> x = {3, 5, -1, 0};
  auto pj = run_tiny("bn_pj", cfg, params, x, Compat::kPjreddie);
  check_close(pj[0], {float((3 - 1) / (2 + 1e-6) * 2), float((5 - 1) / (2 + 1e-6) * 2),
                      float((-1 + 1) / (std::sqrt(1e-4) + 1e-6) * .5), float((0 + 1) / (std::sqrt(1e-4) + 1e-6) * .5)});
  auto ab = run_tiny("bn_ab", cfg, params, x, Compat::kAlexeyAB);
  check_close(ab[0], {float((3 - 1) / std::sqrt(4 + 1e-5) * 2), float((5 - 1) / std::sqrt(4 + 1e-5) * 2), 0.f,
                      float(1 / std::sqrt(1e-4 + 1e-5) * .5)});
  CHECK(std::fabs(pj[0][3] - ab[0][3]) > 1);  // the two forms really differ on tiny variances
}

TEST_CASE("scale_channels: multiplies each plane by its channel's scale", "[layers]") {
  // Layer 0: 1x1 conv to 2 channels (identity weights) on a 2x2x2 input; layer 1 global avgpool;
  // layer 2: scale_channels from=0 multiplies the conv output planes by their averages.
  const std::string cfg = net_head(2, 2, 2) +
                          "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n[avgpool]\n\n"
                          "[scale_channels]\nfrom=0\n";
  const std::vector<float> params = {0, 0, 1, 0, 0, 1};  // biases, then the 2x2 identity
  const std::vector<float> x = {1, 2, 3, 4, 10, 20, 30, 40};
  auto o = run_tiny("scale_ch", cfg, params, x, Compat::kAlexeyAB);
  check_close(o[1], {2.5f, 25});
  check_close(o[2], {2.5f, 5, 7.5f, 10, 250, 500, 750, 1000});
}

TEST_CASE("sam: multiplies element-wise, then activates", "[layers]") {
  const std::string cfg = net_head(2, 1, 1) +
                          "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n\n"
                          "[sam]\nfrom=-1\nactivation=relu6\n";
  // conv: y = 2x + 1, then sam(y, y) = y^2 clipped at 6 by relu6.
  auto o = run_tiny("sam", cfg, {1, 2}, {0.5f, -3}, Compat::kAlexeyAB);
  check_close(o[0], {2, -5});
  check_close(o[1], {4, 6});
}

TEST_CASE("route: groups/group_id takes one channel slice under AlexeyAB, all under pjreddie", "[layers]") {
  const std::string cfg = net_head(1, 1, 4) + "[convolutional]\nfilters=4\nsize=1\nactivation=linear\n\n"
                                              "[route]\nlayers=-1\ngroups=2\ngroup_id=1\n";
  std::vector<float> params = {0, 0, 0, 0};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) params.push_back(i == j ? 1.f : 0.f);
  auto ab = run_tiny("route_ab", cfg, params, {1, 2, 3, 4}, Compat::kAlexeyAB);
  check_close(ab[1], {3, 4});
  auto pj = run_tiny("route_pj", cfg, params, {1, 2, 3, 4}, Compat::kPjreddie);
  check_close(pj[1], {1, 2, 3, 4});
}

TEST_CASE("shortcut: AlexeyAB weights_type per_feature and per_channel with normalisation", "[layers]") {
  const std::string base = net_head(1, 1, 2) + "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n"
                                               "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n";
  const std::vector<float> convs = {0, 0, 1, 0, 0, 1, 0, 0, 2, 0, 0, 2};  // identity, then 2*identity
  const std::vector<float> x = {1, -3};
  SECTION("per_feature, no normalisation: w0*prev + w1*from") {
    std::vector<float> p = convs;
    p.insert(p.end(), {0.5f, 3});
    auto o = run_tiny("sc_pf", base + "[shortcut]\nfrom=0\nweights_type=per_feature\nactivation=linear\n", p, x,
                      Compat::kAlexeyAB);
    check_close(o[2], {0.5f * 2 + 3 * 1, 0.5f * -6 + 3 * -3});
  }
  SECTION("per_channel, relu normalisation") {
    std::vector<float> p = convs;
    p.insert(p.end(), {1, -1, 3, 2});  // [source][channel]: prev c0,c1 then from c0,c1
    auto o = run_tiny("sc_pc", base + "[shortcut]\nfrom=0\nweights_type=per_channel\nweights_normalization=relu\n", p,
                      x, Compat::kAlexeyAB);
    const float s0 = 0.0001f + 1 + 3, s1 = 0.0001f + 0 + 2;
    check_close(o[2], {2 * 1 / s0 + 1 * 3 / s0, -6 * 0 / s1 + -3 * 2 / s1});
  }
  SECTION("per_feature, softmax normalisation, leaky") {
    std::vector<float> p = convs;
    p.insert(p.end(), {0, std::log(3.f)});
    auto o = run_tiny("sc_sm", base + "[shortcut]\nfrom=0\nweights_type=per_feature\nweights_normalization=softmax\n"
                                      "activation=leaky\n",
                      p, x, Compat::kAlexeyAB);
    const float s = 0.0001f + 1.f / 3 + 1;  // exp(w - max): 1/3 and 1
    const float c0 = 2 * (1.f / 3) / s + 1 * 1 / s, c1 = -6 * (1.f / 3) / s + -3 * 1 / s;
    check_close(o[2], {c0, c1 * 0.1f});
  }
}

TEST_CASE("maxpool: maxpool_depth takes the max across channel groups", "[layers]") {
  const std::string cfg = net_head(2, 1, 4) + "[maxpool]\nmaxpool_depth=1\nout_channels=2\n";
  // channels 0..3 at two pixels; out channel g = max(channel g, channel g+2).
  auto o = run_tiny("maxdepth", cfg, {}, {1, 8, 5, 2, 3, 4, 0, 9}, Compat::kAlexeyAB);
  check_close(o[0], {3, 8, 5, 9});
}

TEST_CASE("yolo: scale_x_y and new_coords under AlexeyAB, ignored under pjreddie", "[layers]") {
  // 1 anchor, 1 class, 1x1 grid: 6 channels x, y, w, h, obj, class.
  const std::string cfg = net_head(1, 1, 6) +
                          "[yolo]\nmask=0\nanchors=10,20\nnum=1\nclasses=1\nscale_x_y=1.2\nnms_kind=greedynms\n";
  const std::vector<float> x = {0, 2, 0.5f, -1, 0, 3};
  auto sig = [](float v) { return float(1 / (1 + std::exp(-double(v)))); };
  auto ab = run_tiny("yolo_ab", cfg, {}, x, Compat::kAlexeyAB);
  check_close(ab[0], {sig(0) * 1.2f - 0.1f, sig(2) * 1.2f - 0.1f, 0.5f, -1, sig(0), sig(3)});
  auto pj = run_tiny("yolo_pj", cfg, {}, x, Compat::kPjreddie);
  check_close(pj[0], {sig(0), sig(2), 0.5f, -1, sig(0), sig(3)});
  auto nc = run_tiny("yolo_nc", net_head(1, 1, 6) + "[yolo]\nmask=0\nanchors=10,20\nnum=1\nclasses=1\nnew_coords=1\n"
                                                    "scale_x_y=2\n",
                     {}, {0.25f, 0.5f, 0.5f, 1, 0.9f, 0.8f}, Compat::kAlexeyAB);
  check_close(nc[0], {0.25f * 2 - 0.5f, 0.5f * 2 - 0.5f, 0.5f, 1, 0.9f, 0.8f});  // no logistic at all
}

TEST_CASE("AlexeyAB activations: mish, swish, relu6, hard_mish, gelu", "[layers]") {
  struct Case {
    const char* name;
    double (*f)(double);
  };
  const Case cases[] = {
      {"mish", [](double v) { return v * std::tanh(std::log1p(std::exp(v))); }},
      {"swish", [](double v) { return v / (1 + std::exp(-v)); }},
      {"relu6", [](double v) { return std::min(std::max(v, 0.0), 6.0); }},
      {"hard_mish", [](double v) { return v > 0 ? v : v > -2 ? v * v / 2 + v : 0.0; }},
      {"gelu", [](double v) { return 0.5 * v * (1 + std::tanh(0.797885 * v + 0.035677 * v * v * v)); }},
  };
  const std::vector<float> x = {-30, -3, -1.5f, -0.2f, 0, 0.7f, 2, 7, 25};
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string cfg = net_head(9, 1, 1) + "[convolutional]\nfilters=1\nsize=1\nactivation=" + c.name + "\n";
    auto o = run_tiny(std::string("act_") + c.name, cfg, {0, 1}, x, Compat::kAlexeyAB);
    std::vector<float> want;
    for (float v : x) want.push_back(float(c.f(v)));
    check_close(o[0], want, 1e-5f);
  }
}

TEST_CASE("reorg: uses Darknet's channel order; crop centres and rescales", "[layers]") {
  // 4 channels of 2x2 with stride 2 -> 16 channels of 1x1. Darknet's forward runs its kernel
  // backwards (out[in_index] = x[out_index]) with the input's own dimensions.
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i);
  auto o = run_tiny("reorg", net_head(2, 2, 4) + "[reorg]\nstride=2\n", {}, x);
  // Worked by hand from Darknet's kernel with (w,h,c) = (2,2,4), out_c = 1:
  // output[i + 2j + 4k] = x[(2i + k%2) + 4(2j + k/2)], read as a 4x4 single-channel image.
  check_close(o[0], {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});

  auto c = run_tiny("crop", net_head(4, 4, 1) + "[crop]\ncrop_width=2\ncrop_height=2\n", {},
                    {0, 0, 0, 0, 0, .25f, .5f, 0, 0, .75f, 1, 0, 0, 0, 0, 0});
  check_close(c[0], {-0.5f, 0, 0.5f, 1});
}

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

TEST_CASE("AlexeyAB conv keys that change results are refused, harmless values accepted", "[layers]") {
  const std::string head = "[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional]\nfilters=2\nsize=3\nstride=1\n";
  for (const char* bad : {"dilation=2", "stride_x=2", "antialiasing=1", "share_index=0"}) {
    auto n = network_from_text(head + bad + "\n", "conv_bad.cfg");
    INFO(bad);
    REQUIRE_FALSE(n.ok());
    CHECK(n.status().kind() == ErrorKind::kUnsupported);
    CHECK(n.status().message().find("conv_bad.cfg:10") != std::string::npos);
  }
  CHECK(network_from_text(head + "dilation=1\nstride_x=1\nstride_y=1\nantialiasing=0\n", "conv_ok.cfg").ok());
}

TEST_CASE("DIoU NMS suppresses by IoU minus the centre-distance term", "[detect]") {
  Box a{0.5f, 0.5f, 0.4f, 0.4f}, b{0.6f, 0.5f, 0.4f, 0.4f};
  const float iou = box_iou(a, b);  // 0.3*0.4 / (0.16+0.16-0.12) = 0.6
  CHECK(iou == Approx(0.6f));
  // Enclosing box 0.5 x 0.4: c = 0.41; d = 0.01.
  CHECK(box_diou(a, b, 0.6f) == Approx(0.6 - std::pow(0.01 / 0.41, 0.6)).epsilon(1e-5));
  auto det = [](Box bx, float p) {
    Detection d;
    d.bbox = bx;
    d.objectness = p;
    d.prob = {p};
    return d;
  };
  // IoU 0.6 > 0.45 but DIoU with beta 0.6 is 0.6 - 0.108 = 0.49 > 0.45: suppressed; a box further
  // away with IoU 0.5 has DIoU below the threshold and survives, though plain NMS drops it.
  std::vector<Detection> dets = {det(a, 0.9f), det(b, 0.8f), det({0.5f, 0.6333f, 0.4f, 0.4f}, 0.7f)};
  std::vector<Detection> plain = dets;
  diou_nms_sort(dets, 1, 0.45f, 0.6f);
  nms_sort(plain, 1, 0.45f);
  CHECK(dets[0].prob[0] == 0.9f);
  CHECK(dets[1].prob[0] == 0);
  CHECK(plain[1].prob[0] == 0);
  CHECK(plain[2].prob[0] == 0);
  CHECK(box_iou(a, dets[2].bbox) > 0.45f);
  CHECK(box_diou(a, dets[2].bbox, 0.6f) < 0.45f);
  CHECK(dets[2].prob[0] == 0.7f);
}

TEST_CASE("the layer registry: one entry per section, names and aliases resolve, info --layers prints it", "[layers]") {
  std::vector<std::string> spellings{net_registration().section};
  for (const char* a : net_registration().aliases) spellings.push_back(a);
  std::vector<std::string> sections;
  for (const LayerRegistration& r : registered_layers()) {
    INFO(r.section);
    CHECK(r.create != nullptr);
    CHECK(*r.doc != '\0');
    CHECK(find_registration(r.section) == &r);
    CHECK(canonical_section(r.section) == r.section);
    for (const char* a : r.aliases) CHECK(canonical_section(a) == r.section);
    sections.push_back(r.section);
    spellings.push_back(r.section);
    spellings.insert(spellings.end(), r.aliases.begin(), r.aliases.end());
  }
  CHECK(find_registration("net") == &net_registration());
  CHECK(find_registration("deconvolutional") == nullptr);  // parsed, refused by build_network
  std::sort(spellings.begin(), spellings.end());
  CHECK(std::adjacent_find(spellings.begin(), spellings.end()) == spellings.end());  // no spelling twice
  std::sort(sections.begin(), sections.end());
  CHECK(sections == supported_layer_types());
  auto r = run_command(mdfi_binary() + " info --layers");
  REQUIRE(r.exit_code == 0);
  for (const LayerRegistration& reg : registered_layers())
    CHECK(r.out.find("[" + std::string(reg.section) + "]\n") != std::string::npos);
  for (const char* s : {"[net]", "[scale_channels]", "[region]", "[local]", "scale_x_y", "weights_type",
                        "groups, group_id", "letter_box", "mish"})
    CHECK(r.out.find(s) != std::string::npos);
}
