// Decoding and Darknet's preprocessing, bit for bit, on every target: the FNV-1a hash of each
// result (decoded 8-bit pixels; letterbox and resize as floats, from the 8-bit and the float
// image) must equal the one recorded from the x86-64 build in test/data/image-golden.txt. The
// cross builds run this under qemu (scripts/ci-cross.sh), so an ARM build that decodes or
// resamples differently fails here; the x86-64 results themselves are compared with libdarknet's
// letterbox and resize in test_parity.cpp ([parity]).
// To re-record after a deliberate change: build/test/mdfi_tests "[.image-golden-write]".
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "image.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

uint64_t fnv1a(const void* data, size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// "image op WxH" -> hash of the result, for every image and operation of the golden file.
std::map<std::string, std::string> compute() {
  const std::string images[] = {"/usr/share/darknet/data/dog.jpg", "/usr/share/darknet/data/eagle.jpg",
                                source_path("test/bad/good/small.png")};
  struct Op {
    const char* name;
    int w, h;
  };
  const Op ops[] = {{"letterbox", 416, 416}, {"letterbox", 608, 320}, {"letterbox", 97, 131},
                    {"resize", 224, 300},    {"resize", 227, 227}};
  std::map<std::string, std::string> out;
  for (const std::string& path : images) {
    const std::string base = path.substr(path.rfind('/') + 1);
    MemoryTracker mem;
    auto u8 = load_image_u8(path, mem);
    INFO(path << ": " << (u8.ok() ? std::string() : u8.status().message()));
    REQUIRE(u8.ok());
    out[base + " decode " + std::to_string(u8->w) + "x" + std::to_string(u8->h)] =
        hex(fnv1a(u8->pixels(), size_t(u8->w) * u8->h * 3));
    auto f = load_image_rgb(path, mem);
    REQUIRE(f.ok());
    for (const Op& op : ops) {
      const bool lb = std::string(op.name) == "letterbox";
      auto a = lb ? letterbox_image(*u8, op.w, op.h, mem) : resize_image(*u8, op.w, op.h, mem);
      auto b = lb ? letterbox_image(*f, op.w, op.h, mem) : resize_image(*f, op.w, op.h, mem);
      REQUIRE((a.ok() && b.ok()));
      const std::string size = std::to_string(op.w) + "x" + std::to_string(op.h);
      out[base + " " + op.name + "-u8 " + size] = hex(fnv1a(a->data.data(), a->data.size() * sizeof(float)));
      out[base + " " + op.name + "-float " + size] = hex(fnv1a(b->data.data(), b->data.size() * sizeof(float)));
    }
  }
  return out;
}

const char* kGolden = "test/data/image-golden.txt";

}  // namespace

TEST_CASE("decode, letterbox and resize give the x86-64 build's results bit for bit", "[image]") {
  std::ifstream f(source_path(kGolden));
  REQUIRE(f.good());
  std::map<std::string, std::string> golden;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.rfind(' ');
    golden[line.substr(0, sp)] = line.substr(sp + 1);
  }
  const auto ours = compute();
  REQUIRE(golden.size() == ours.size());
  for (const auto& [what, hash] : ours) {
    INFO(what);
    REQUIRE(golden.count(what) == 1);
    CHECK(golden[what] == hash);
  }
}

TEST_CASE("write test/data/image-golden.txt from this build (x86-64 only, by hand)", "[.image-golden-write]") {
  std::ofstream f(source_path(kGolden));
  f << "# FNV-1a 64 of mdfi's decode / letterbox / resize results on x86-64 (test_image_golden.cpp)\n";
  for (const auto& [what, hash] : compute()) f << what << " " << hash << "\n";
  REQUIRE(f.good());
}
