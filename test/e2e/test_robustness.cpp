// End-to-end robustness: every entry of the bad-input corpus (test/bad/cases.txt) runs through the
// real mdfi binary and must end with its documented exit code, a one-line error naming the file
// (and the cfg line or layer), and never a signal or a sanitizer report. Files that are large or
// derived from generated weights are made here at run time, into the build tree. Also: a batch
// of 100 images with 5 broken ones loses no work, and -o is complete or reported as failed.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <stb_image_write.h>  // compiled once in test/stb_write.cpp

#include "support.h"
#include "weights.h"

namespace {

using mdfi::test::run_command;
using mdfi::test::write_file;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(trim(item));
  return out;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
}

void put_float(std::string& bytes, size_t at, float v) { std::memcpy(&bytes[at], &v, 4); }

// A 48x40 gradient JPEG, encoded by stb_image_write.
std::string good_jpeg() {
  std::vector<unsigned char> px(48 * 40 * 3);
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 48; ++x) {
      unsigned char* p = &px[size_t(y * 48 + x) * 3];
      p[0] = (unsigned char)(x * 5);
      p[1] = (unsigned char)(y * 6);
      p[2] = (unsigned char)((x * y) & 255);
    }
  std::string out;
  stbi_write_jpg_to_func([](void* ctx, void* data, int size) { static_cast<std::string*>(ctx)->append((char*)data, size_t(size)); },
                         &out, 48, 40, 3, px.data(), 90);
  return out;
}

// The bytes of the first marker segment `marker` (0xFF, marker) in a JPEG.
size_t jpeg_marker(const std::string& jpg, unsigned char marker) {
  for (size_t i = 2; i + 1 < jpg.size(); ++i)
    if ((unsigned char)jpg[i] == 0xFF && (unsigned char)jpg[i + 1] == marker) return i;
  return std::string::npos;
}

struct Corpus {
  std::string bad, gen, cfg, weights, img;
};

// Makes the run-time part of the corpus once per test process.
const Corpus& corpus() {
  static const Corpus c = [] {
    Corpus k;
    k.bad = mdfi::test::source_path("test/bad");
    k.gen = mdfi::test::tmp_dir("bad-corpus");
    k.cfg = k.bad + "/good/tiny-yolo.cfg";
    k.img = k.bad + "/good/small.png";
    k.weights = mdfi::test::generated_weights(k.cfg, "bad-tiny-yolo");
    const std::string& g = k.gen;
    ::mkdir((g + "/dir.cfg").c_str(), 0755);
    ::mkdir((g + "/dir.weights").c_str(), 0755);
    ::mkdir((g + "/dir.png").c_str(), 0755);
    if (::symlink("loop.weights", (g + "/loop.weights").c_str()) != 0) FAIL("cannot make a symlink loop");

    // Weights variants of the good file: sizes, headers, non-finite values.
    const std::string good = read_file(k.weights);
    auto net = mdfi::load_network_cfg(k.cfg, mdfi::BuildOptions{});
    REQUIRE(net.ok());
    const std::vector<size_t> off = mdfi::layer_param_offsets(*net);
    write_file(g + "/empty.weights", "");
    write_file(g + "/header-only.weights", good.substr(0, 20));
    write_file(g + "/half.weights", good.substr(0, good.size() / 2));
    write_file(g + "/short-by-1.weights", good.substr(0, good.size() - 1));
    write_file(g + "/long-by-1.weights", good + "x");
    std::string seen32 = good;  // says version 0.1 (32-bit seen) over a 0.2 layout
    seen32[4] = 1;
    write_file(g + "/seen32-header.weights", seen32);
    std::string seen64 = good.substr(0, 16) + good.substr(20);  // an old 16-byte header file...
    seen64[4] = 2;                                             // ...whose header says 0.2
    write_file(g + "/seen64-header.weights", seen64);
    std::string nan = good;
    put_float(nan, 20 + 4 * (off[0] + 5), std::numeric_limits<float>::quiet_NaN());
    write_file(g + "/nan.weights", nan);
    std::string inf = good;
    put_float(inf, 20 + 4 * (off[3] + 20), -std::numeric_limits<float>::infinity());
    write_file(g + "/inf.weights", inf);
    std::string huge = good;
    for (size_t at = 20; at + 4 <= huge.size(); at += 4) put_float(huge, at, 1e30f);
    write_file(g + "/huge-finite.weights", huge);
    std::string other_cfg = read_file(k.cfg);
    replace_all(other_cfg, "filters=16", "filters=24");
    write_file(g + "/other.cfg", other_cfg);
    auto other = mdfi::load_network_cfg(g + "/other.cfg", mdfi::BuildOptions{});
    REQUIRE(other.ok());
    REQUIRE(mdfi::generate_weights(*other, g + "/other-cfg.weights", 7).ok());
    const std::string classifier = k.bad + "/good/classifier.cfg";
    write_file(g + "/classifier.cfg", read_file(classifier));
    auto cls = mdfi::load_network_cfg(classifier, mdfi::BuildOptions{});
    REQUIRE(cls.ok());
    REQUIRE(mdfi::generate_weights(*cls, g + "/classifier.weights", 3).ok());

    // JPEGs: good, truncated, headers that lie.
    const std::string jpg = good_jpeg();
    const size_t sof = jpeg_marker(jpg, 0xC0), sos = jpeg_marker(jpg, 0xDA);
    REQUIRE(sof != std::string::npos);
    REQUIRE(sos != std::string::npos);
    write_file(g + "/good.jpg", jpg);
    write_file(g + "/truncated.jpg", jpg.substr(0, sos + (jpg.size() - sos) / 2));
    write_file(g + "/header-only.jpg", jpg.substr(0, sos));
    std::string huge_jpg = jpg;  // SOF: FF C0, length(2), precision(1), height(2), width(2)
    huge_jpg[sof + 5] = char(0xEA), huge_jpg[sof + 6] = char(0x60);
    huge_jpg[sof + 7] = char(0xEA), huge_jpg[sof + 8] = char(0x60);
    write_file(g + "/huge-header.jpg", huge_jpg);
    std::string zero_h = jpg;
    zero_h[sof + 5] = 0, zero_h[sof + 6] = 0;
    write_file(g + "/zero-height.jpg", zero_h);
    std::string bad_comp = jpg;
    bad_comp[sof + 9] = 7;  // 7 colour components
    write_file(g + "/bad-components.jpg", bad_comp);
    std::string garbage_scan = jpg;  // entropy-coded data replaced by noise: decodes to noise
    for (size_t i = sos + 20; i + 2 < garbage_scan.size(); ++i) garbage_scan[i] = char((i * 37) & 0x7F);
    write_file(g + "/garbage-scan.jpg", garbage_scan);

    // Large cfgs.
    const std::string net_head = "[net]\nwidth=32\nheight=32\nchannels=3\n\n";
    std::string brackets = net_head;
    for (int i = 0; i < 10000; ++i) brackets += std::string(64, '[') + "\n";
    write_file(g + "/brackets-10000.cfg", brackets);
    std::string chain = net_head + "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n";
    for (int i = 0; i < 10000; ++i) chain += "[maxpool]\nsize=1\nstride=1\n";  // lines 12..30011
    write_file(g + "/chain-10000.cfg", chain + "[convolutional]\nfilters=18\nsize=1\nactivation=linear\n\n"
                                               "[yolo]\nmask=0,1,2\nanchors=4,4,8,8,16,16\nclasses=1\nnum=3\n");
    write_file(g + "/chain-10000-bad.cfg", chain + "\n\n\n\n\n[route]\nlayers=-20000\n");  // layers= on line 30018
    std::string long_value = read_file(k.cfg);
    replace_all(long_value, "filters=16", "filters=" + std::string(1 << 20, '7') + "x");
    write_file(g + "/long-value.cfg", long_value.substr(long_value.find("[net]")));
    std::string long_section = read_file(k.cfg);
    replace_all(long_section, "[maxpool]", "[" + std::string(1 << 20, 'm') + "]");
    write_file(g + "/long-section.cfg", long_section.substr(long_section.find("[net]")));
    std::string big = net_head;
    while (big.size() < (17u << 20)) big += "# padding comment line to make the file larger than any real cfg\n";
    write_file(g + "/big.cfg", big);
    return k;
  }();
  return c;
}

std::string expand(std::string s, const Corpus& c) {
  replace_all(s, "{bad}", c.bad);
  replace_all(s, "{gen}", c.gen);
  replace_all(s, "{cfg}", c.cfg);
  replace_all(s, "{w}", c.weights);
  replace_all(s, "{img}", c.img);
  return s;
}

// What must never appear, whatever the input.
void check_no_crash(const mdfi::test::CommandResult& r) {
  CHECK(r.signal == 0);
  CHECK(r.err.find("Sanitizer") == std::string::npos);
  CHECK(r.err.find("runtime error:") == std::string::npos);
  CHECK(r.err.find("terminate called") == std::string::npos);
  CHECK(r.err.find("Assertion") == std::string::npos);
}

struct Case {
  std::string name, args;
  int exit = 0;
  std::vector<std::string> words;
};

std::vector<Case> load_cases() {
  std::vector<Case> cases;
  std::ifstream f(mdfi::test::source_path("test/bad/cases.txt"));
  std::string line;
  while (std::getline(f, line)) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const std::vector<std::string> cols = split(line, '|');
    REQUIRE(cols.size() == 4);
    Case c{cols[0], cols[1], std::stoi(cols[2]), {}};
    for (const std::string& w : split(cols[3], ';'))
      if (!w.empty()) c.words.push_back(w);
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

TEST_CASE("every bad input of the corpus gives its exit code and a one-line error, never a signal",
          "[robustness]") {
  const Corpus& c = corpus();
  REQUIRE(!c.weights.empty());
  const std::vector<Case> cases = load_cases();
  REQUIRE(cases.size() >= 40);
  for (const Case& k : cases) {
    const std::string cmd = "'" + mdfi::test::mdfi_binary() + "' " + expand(k.args, c);
    const auto r = run_command(cmd);
    INFO("case " << k.name << ": " << cmd << "\nexit " << r.exit_code << ", signal " << r.signal << "\nstderr: "
                 << r.err.substr(0, 2000));
    check_no_crash(r);
    CHECK(r.exit_code == k.exit);
    // Messages stay one short line even when the input has a 1 MB line in it.
    for (const std::string& l : split(r.err, '\n')) CHECK(l.size() < 1000);
    if (k.exit == 0) {
      for (const std::string& w : k.words) CHECK((r.out + r.err).find(w) != std::string::npos);
      continue;
    }
    bool found = false;
    for (const std::string& l : split(r.err, '\n')) {
      if (l.rfind("mdfi: error:", 0) != 0) continue;
      bool all = true;
      for (const std::string& w : k.words) all = all && l.find(w) != std::string::npos;
      found = found || all;
    }
    CHECK(found);
  }
}

TEST_CASE("a batch of 100 images with 5 broken ones gives 95 results and 5 error records in order, exit 3",
          "[robustness]") {
  const Corpus& c = corpus();
  const std::string dir = mdfi::test::tmp_dir("batch100");
  const std::vector<std::pair<int, std::string>> broken = {
      {3, c.gen + "/no-such.jpg"},
      {20, c.bad + "/img/zero-bytes.png"},
      {47, c.bad + "/img/text-named.jpg"},
      {71, c.gen + "/truncated.jpg"},
      {99, c.bad + "/img/huge-header.png"}};
  std::vector<std::string> images;
  std::string list;
  for (int i = 0; i < 100; ++i) {
    std::string path;
    for (const auto& b : broken)
      if (b.first == i) path = b.second;
    if (path.empty()) {
      path = dir + "/img" + std::to_string(i) + (i % 2 ? ".png" : ".jpg");
      write_file(path, read_file(i % 2 ? c.img : c.gen + "/good.jpg"));
    }
    images.push_back(path);
    list += path + "\n";
  }
  write_file(dir + "/list.txt", list);
  const std::string base = "'" + mdfi::test::mdfi_binary() + "' detect -q --cfg '" + c.cfg + "' --weights '" + c.weights + "' ";

  SECTION("jsonl on stdout: one record per input, in input order") {
    const auto r = run_command(base + "--format jsonl --list '" + dir + "/list.txt'");
    INFO(r.err.substr(0, 2000));
    check_no_crash(r);
    CHECK(r.exit_code == 3);
    const std::vector<std::string> lines = split(r.out, '\n');
    std::vector<std::string> records;
    for (const auto& l : lines)
      if (!l.empty()) records.push_back(l);
    REQUIRE(records.size() == 100);
    int errors = 0;
    for (int i = 0; i < 100; ++i) {
      INFO("record " << i << ": " << records[size_t(i)]);
      CHECK(records[size_t(i)].find("\"" + images[size_t(i)] + "\"") != std::string::npos);
      const bool is_error = records[size_t(i)].find("\"error\"") != std::string::npos;
      bool expect_error = false;
      for (const auto& b : broken) expect_error = expect_error || b.first == i;
      CHECK(is_error == expect_error);
      errors += is_error;
    }
    CHECK(errors == 5);
  }
  SECTION("text: 95 result blocks in order on stdout, 5 error lines on stderr, exit 3") {
    std::string args;
    for (const auto& p : images) args += " '" + p + "'";
    const auto r = run_command(base + args);
    check_no_crash(r);
    CHECK(r.exit_code == 3);
    size_t at = 0;
    int results = 0;
    for (int i = 0; i < 100; ++i) {
      bool is_broken = false;
      for (const auto& b : broken) is_broken = is_broken || b.first == i;
      if (is_broken) {
        CHECK(r.err.find("mdfi: error: " + images[size_t(i)] + ":") != std::string::npos);
        continue;
      }
      const size_t p = r.out.find(images[size_t(i)] + ":", at);
      CHECK(p != std::string::npos);
      if (p != std::string::npos) at = p, ++results;
    }
    CHECK(results == 95);
  }
  SECTION("-o FILE is written completely, or reported as failed and not left behind") {
    const auto ok = run_command(base + "--format jsonl -o '" + dir + "/out.jsonl' --list '" + dir + "/list.txt'");
    check_no_crash(ok);
    CHECK(ok.exit_code == 3);
    int records = 0;
    for (const auto& l : split(read_file(dir + "/out.jsonl"), '\n')) records += !l.empty();
    CHECK(records == 100);
    const auto bad = run_command(base + "--format jsonl -o '" + dir + "/no-such-dir/out.jsonl' --list '" + dir + "/list.txt'");
    check_no_crash(bad);
    CHECK(bad.exit_code == 1);
    CHECK(bad.err.find("no-such-dir/out.jsonl") != std::string::npos);
    struct stat st {};
    CHECK(::stat((dir + "/no-such-dir/out.jsonl").c_str(), &st) != 0);
    // A run that fails as a whole part-way (non-finite weights at layer 0 of the first image)
    // must not leave a half-written file under the name asked for.
    const auto failed = run_command("'" + mdfi::test::mdfi_binary() + "' detect -q --cfg '" + c.cfg + "' --weights '" +
                                    c.gen + "/nan.weights' --format jsonl -o '" + dir + "/failed.jsonl' --list '" + dir +
                                    "/list.txt'");
    check_no_crash(failed);
    CHECK(failed.exit_code == 1);
    CHECK(::stat((dir + "/failed.jsonl").c_str(), &st) != 0);
  }
}
