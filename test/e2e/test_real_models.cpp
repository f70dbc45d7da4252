// Real pretrained models from ../shared/models against pjreddie Darknet's reference outputs
// (section B of each reference file: the Debian libdarknet), run through the real `mdfi` binary
// with --compat pjreddie on the lossless PNG copies: classifiers must give the same top-k with
// probabilities within 0.0001 (the printed precision), detectors the same classes with
// confidences within 0.01 and boxes within 2 px.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <array>
#include <map>
#include <regex>
#include <sstream>

#include "support.h"

using namespace mdfi::test;

namespace {

// Section B of a classifier reference: image -> [(percent, label)].
std::vector<std::pair<double, std::string>> reference_top(const std::string& ref, const std::string& image_line) {
  std::vector<std::pair<double, std::string>> out;
  const size_t sec = ref.find("######## B)");
  size_t p = ref.find("\n" + image_line + ":\n", sec);
  REQUIRE(p != std::string::npos);
  std::istringstream lines(ref.substr(ref.find('\n', p + 1) + 1));
  const std::regex row(R"(^\s+([0-9.]+)%: (.*)$)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) break;
    out.emplace_back(std::stod(m[1]), m[2]);
  }
  return out;
}

void check_classifier(const std::string& dir, const std::string& cfg, const std::string& weights,
                      const std::string& names, const std::string& image_dir, const std::string& image_prefix,
                      const std::vector<std::string>& images) {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string d = shared_path("models/" + dir);
  const std::string ref = slurp(d + "/reference_outputs.txt");
  for (const std::string& img : images) {
    const auto want = reference_top(ref, image_prefix + img);
    REQUIRE(!want.empty());
    auto r = run_command(mdfi_binary() + " -q classify --compat pjreddie --cfg '" + d + "/" + cfg + "' -w '" + d + "/" +
                         weights + "' --names '" + d + "/" + names + "' --top " + std::to_string(want.size()) +
                         " --format jsonl '" + image_dir + "/" + img + "'");
    INFO(dir << " on " << img << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["classes"].size() == want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      INFO("rank " << k + 1 << " reference " << want[k].second << " " << want[k].first << "%");
      CHECK(j["classes"][k]["name"] == want[k].second);
      CHECK(std::abs(j["classes"][k]["probability"].get<double>() * 100 - want[k].first) <= 0.0051);
    }
  }
}

}  // namespace

TEST_CASE("Tiny Darknet top-5 equals pjreddie's (malamute, bald eagle, ...)", "[models]") {
  check_classifier("tiny-darknet-imagenet", "tiny.cfg", "tiny.weights", "imagenet.shortnames.list",
                   shared_path("models/images"), "../images/",
                   {"dog.png", "eagle.png", "person.png", "horses.png", "giraffe.png"});
}

TEST_CASE("MNIST LeNet classifies its 20 digits as pjreddie does", "[models]") {
  std::vector<std::string> digits;
  for (int i = 0; i < 20; ++i) {
    const std::string dir = shared_path("models/mnist-lenet/images");
    if (dir.empty()) break;
    const std::string ls = run_command("ls '" + dir + "' | grep '^t_" + (i < 10 ? "0000" : "000") + std::to_string(i) + "_'").out;
    if (!ls.empty()) digits.push_back(ls.substr(0, ls.find('\n')));
  }
  if (have_shared_models()) REQUIRE(digits.size() == 20);
  check_classifier("mnist-lenet", "mnist_lenet.cfg", "mnist_lenet.weights", "mnist.names.list",
                   shared_path("models/mnist-lenet/images"), "images/", digits);
}

TEST_CASE("cifar_small equals pjreddie's top-3", "[models]") {
  check_classifier("cifar-small", "cifar_small.cfg", "cifar_small.weights", "labels.txt",
                   shared_path("models/cifar-small/images"), "images/",
                   {"bird_from_eagle.png", "dog_from_dog.png", "dog_from_person.png", "horse_from_horses.png",
                    "horse_from_person.png", "truck_from_dog.png"});
}

TEST_CASE("Yolo-Fastest-1.1(-XL) and YoloFace boxes equal pjreddie's within 2 px", "[models]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  struct Model {
    const char* dir;
    const char* stem;
    const char* names;
    float thresh;
  };
  for (Model m : {Model{"yolo-fastest-1.1-xl-coco", "yolo-fastest-1.1-xl", "coco.names", 0.25f},
                  Model{"yolo-fastest-1.1-coco", "yolo-fastest-1.1", "coco.names", 0.25f},
                  Model{"yoloface-50k", "yoloface-50k", "label.names", 0.5f}}) {
    const std::string d = shared_path(std::string("models/") + m.dir);
    const std::string ref = slurp(d + "/reference_detections.txt");
    // "# image: images/dog.jpg (768x576)" then "dog: 93.55%  rel(...)  px(left=112 top=162 right=417 bottom=540) ..."
    const std::regex head(R"(^# image: images/(\w+)\.jpg)");
    const std::regex box(R"(^(.+): ([0-9.]+)%  rel\(.*\)  px\(left=(\d+) top=(\d+) right=(\d+) bottom=(\d+)\))");
    std::istringstream lines(ref.substr(ref.find("# Boxes from the same library")));
    std::string image;
    std::map<std::string, std::vector<std::smatch>> want;
    std::vector<std::string> keep;
    std::map<std::string, std::vector<std::array<double, 5>>> boxes;
    std::map<std::string, std::vector<std::string>> labels;
    for (std::string line; std::getline(lines, line);) {
      std::smatch mm;
      if (std::regex_search(line, mm, head)) {
        image = mm[1];
      } else if (!image.empty() && std::regex_search(line, mm, box)) {
        labels[image].push_back(mm[1]);
        boxes[image].push_back({std::stod(mm[2]) / 100, std::stod(mm[3]), std::stod(mm[4]), std::stod(mm[5]), std::stod(mm[6])});
      }
    }
    REQUIRE(!boxes.empty());
    for (const auto& [img, want_boxes] : boxes) {
      auto r = run_command(mdfi_binary() + " -q detect --compat pjreddie --cfg '" + d + "/" + m.stem + ".cfg' -w '" + d +
                           "/" + m.stem + ".weights' --names '" + d + "/" + m.names + "' --thresh " +
                           std::to_string(m.thresh) + " --format jsonl '" + shared_path("models/images/" + img + ".png") +
                           "'");
      INFO(m.stem << " on " << img << ".png: " << r.err);
      REQUIRE(r.exit_code == 0);
      auto j = nlohmann::json::parse(r.out);
      const auto& dets = j["detections"];
      CHECK(dets.size() == want_boxes.size());
      std::vector<bool> used(dets.size(), false);
      for (size_t k = 0; k < want_boxes.size(); ++k) {
        const auto& w = want_boxes[k];
        bool matched = false;
        for (size_t i = 0; i < dets.size() && !matched; ++i) {
          const auto& b = dets[i]["box"];
          const double left = b["x"], top = b["y"], right = left + b["w"].get<double>(), bottom = top + b["h"].get<double>();
          if (!used[i] && dets[i]["name"] == labels[img][k] &&
              std::abs(dets[i]["confidence"].get<double>() - w[0]) <= 0.01 && std::abs(left - w[1]) <= 2 &&
              std::abs(top - w[2]) <= 2 && std::abs(right - w[3]) <= 2 && std::abs(bottom - w[4]) <= 2)
            matched = used[i] = true;
        }
        INFO("reference " << labels[img][k] << " " << w[0] << " px " << w[1] << "," << w[2] << "," << w[3] << "," << w[4]);
        CHECK(matched);
      }
    }
  }
}
