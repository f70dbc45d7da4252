// Issue 20, "a CLI that never surprises": one test per item, through the real binary, on tiny
// networks with generated weights (test/data/cli/tiny-*.cfg) so each runs in a second or two.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

const char* kDog = "/usr/share/darknet/data/dog.jpg";
const char* kEagle = "/usr/share/darknet/data/eagle.jpg";

std::string q(const std::string& s) { return "'" + s + "'"; }  // test paths hold no single quote
std::string bin() { return mdfi_binary(); }

void copy_file(const std::string& from, const std::string& to) { write_file(to, slurp(from)); }
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) v.push_back(line);
  return v;
}

std::string detector_cfg() { return source_path("test/data/cli/tiny-detector.cfg"); }
std::string classifier_cfg() { return source_path("test/data/cli/tiny-classifier.cfg"); }
std::string detector_weights() { return generated_weights(detector_cfg(), "cli-tiny-detector"); }
std::string classifier_weights() { return generated_weights(classifier_cfg(), "cli-tiny-classifier"); }
// `-j1 -c CFG -w WEIGHTS --names NAMES` for the tiny detector / classifier.
std::string det_args() {
  return " -j1 -c " + q(detector_cfg()) + " -w " + q(detector_weights()) + " --names " +
         q(source_path("test/data/cli/tiny.names")) + " ";
}
[[maybe_unused]] std::string cls_args() {
  return " -j1 -c " + q(classifier_cfg()) + " -w " + q(classifier_weights()) + " --names " +
         q(source_path("test/data/cli/tiny-classes.names")) + " ";
}

}  // namespace

TEST_CASE("cli #1: an output path that is an input is refused, the photo stays byte-identical", "[cli]") {
  const std::string dir = tmp_dir("cli_i1");
  const std::string d2 = dir + "/d2.jpg", p2 = dir + "/p2.jpg";
  copy_file(kDog, d2);
  copy_file(kEagle, p2);
  const std::string before = slurp(d2);

  // --mem-report takes a value only as --mem-report=FILE: d2.jpg stays an input image.
  auto r = run_command(bin() + " detect -q" + det_args() + "--format jsonl --mem-report " + q(d2) + " " + q(p2));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(lines_of(r.out).size() == 2);
  CHECK(slurp(d2) == before);

  // Every output option, aimed at an input (directly, through ./, through a symlink and a
  // hard link, or at the cfg), fails with exit 2 before anything is written.
  REQUIRE(::symlink(d2.c_str(), (dir + "/link.jpg").c_str()) == 0);
  REQUIRE(::link(d2.c_str(), (dir + "/hard.jpg").c_str()) == 0);
  const std::string cfg_copy = dir + "/net.cfg";
  copy_file(detector_cfg(), cfg_copy);
  const std::string cfg_before = slurp(cfg_copy);
  const std::string model = " -j1 -c " + q(cfg_copy) + " -w " + q(detector_weights()) + " ";
  const std::vector<std::string> attempts = {
      "-o " + q(d2),
      "-o " + q(dir + "/./link.jpg"),
      "-o " + q(dir + "/hard.jpg"),
      "--format json -o " + q(d2),
      "--mem-report=" + q(d2),
      "--mem-plot " + q(d2),
      "-o " + q(cfg_copy),
  };
  for (const std::string& a : attempts) {
    auto x = run_command("cd " + q(dir) + " && " + bin() + " detect" + model + a + " " + q(d2) + " " + q(p2));
    INFO(a << "\n" << x.err);
    CHECK(x.exit_code == 2);
    CHECK(x.out.empty());
    CHECK(x.err.find("input") != std::string::npos);
    CHECK(std::count(x.err.begin(), x.err.end(), '\n') == 1);
    CHECK(slurp(d2) == before);
    CHECK(slurp(cfg_copy) == cfg_before);
  }
  // gen-weights will not write over the cfg it reads.
  auto g = run_command(bin() + " gen-weights -c " + q(cfg_copy) + " -o " + q(cfg_copy));
  CHECK(g.exit_code == 2);
  CHECK(slurp(cfg_copy) == cfg_before);
  // --draw into the folder of the inputs never replaces one: p2's drawing skips the name d2.jpg.
  copy_file(kEagle, dir + "/d2.png");
  auto dr = run_command(bin() + " detect -q" + det_args() + "--draw " + q(dir) + " --draw-ext jpg " + q(dir + "/d2.png") +
                        " " + q(d2));
  INFO(dr.err);
  CHECK(dr.exit_code == 0);
  CHECK(slurp(d2) == before);
}

TEST_CASE("cli: -o /dev/null and -o FIFO work in every format; the target stays what it was", "[cli]") {
  for (const char* f : {"text", "json", "jsonl", "csv"}) {
    INFO(f);
    auto r = run_command(bin() + " detect -q" + det_args() + "--format " + f + " -o /dev/null " + q(kDog));
    INFO(r.err);
    CHECK(r.exit_code == 0);  // it was 1: fsync(2) of /dev/null fails (EINVAL)
  }
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  // JSON goes to a temp file renamed over the target: over a FIFO that would replace the pipe
  // its reader waits on. Written in place instead, all of it reaches the reader.
  const std::string dir = tmp_dir("cli_fifo"), fifo = dir + "/results";
  ::unlink(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  auto r = run_command("(cat " + q(fifo) + " > " + q(dir + "/read.json") + " &) ; " + bin() + " detect -q" + det_args() +
                       "--format json -o " + q(fifo) + " " + q(kDog) + "; rc=$?; sleep 1; " +
                       // A reader still waiting (mdfi never opened the pipe) gets its end of file.
                       "timeout 1 sh -c ': > " + fifo + "' 2>/dev/null; exit $rc");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  const std::string got = slurp(dir + "/read.json");
  CHECK(got.find("dog.jpg") != std::string::npos);
  CHECK(got.find(']') != std::string::npos);  // the whole array
}

TEST_CASE("cli: a cfg or weights file where images go is refused as a mistake of order, naming the file", "[cli]") {
  const std::string cfg = detector_cfg(), weights = detector_weights();
  struct Case {
    std::string args, file, option;
  } cases[] = {
      {q(weights) + " " + q(cfg) + " " + q(kDog), weights, "-w"},     // Darknet's form, swapped
      {"-t 0.5 " + q(cfg) + " " + q(weights) + " " + q(kDog), cfg, "-c"},  // an option before it
      {"-c " + q(cfg) + " " + q(kDog) + " " + q(weights), weights, "-w"},  // the weights left positional
  };
  for (const Case& c : cases) {
    auto r = run_command(bin() + " detect " + c.args);
    INFO(c.args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.file + ": ") != std::string::npos);
    CHECK(r.err.find("not an image: give it with " + c.option) != std::string::npos);
    CHECK(r.out.empty());
  }
  // A list line is an input like any other: that line fails as an image, the rest of the batch runs.
  auto listed = run_command("printf '%s\\n%s\\n' " + q(weights) + " " + q(kDog) + " | " + bin() + " detect" + det_args() +
                            "--format jsonl --list -");
  INFO(listed.err);
  CHECK(listed.exit_code == 3);
  CHECK(lines_of(listed.out).size() == 2);
  CHECK(listed.err.find("1 ok, 1 failed") != std::string::npos);
  // Darknet's own order still runs (writing predictions.jpg where it runs, as Darknet does).
  const std::string dir = tmp_dir("cli_order");
  auto ok = run_command("cd " + q(dir) + " && " + bin() + " detect " + q(cfg) + " " + q(weights) + " " + q(kDog) +
                        " -thresh 0.5");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("cli #13: an interrupted batch keeps its finished records, --resume completes it", "[cli]") {
  const std::string dir = tmp_dir("cli_i13");
  const int n = 30;
  std::string list;
  for (int i = 0; i < n; ++i) {
    const std::string p = dir + "/img" + std::to_string(100 + i) + ".jpg";
    REQUIRE(::symlink(kDog, p.c_str()) == 0);
    list += p + "\n";
  }
  write_file(dir + "/list.txt", list);
  for (const char* sig : {"INT", "TERM"}) {
    for (const char* fmt : {"jsonl", "csv"}) {
      const std::string out = dir + "/out." + fmt;
      ::unlink(out.c_str());
      const std::string cmd = bin() + " detect" + det_args() + "--format " + fmt + " -o " + q(out) + " --list " +
                              q(dir + "/list.txt");
      // Started in the background; signalled once at least 3 records are in the file.
      auto r = run_command("(" + cmd + ") & p=$!; t=0; while [ \"$(cat " + q(out) + " 2>/dev/null | wc -l)\" -lt 4 ] && [ $t -lt 400 ]; "
                           "do sleep 0.02; t=$((t+1)); done; kill -" + sig + " $p; wait $p");
      INFO(sig << " " << fmt << "\n" << r.err);
      CHECK(r.exit_code == (std::string(sig) == "INT" ? 130 : 143));
      CHECK(r.err.find("interrupted by SIG") != std::string::npos);
      CHECK(r.err.find("ok, 0 failed") != std::string::npos);  // the summary line
      const std::string first = slurp(out);
      CHECK(!first.empty());
      CHECK(first.back() == '\n');  // whole records only
      auto resumed = run_command(cmd + " --resume");
      INFO(resumed.err);
      CHECK(resumed.exit_code == 0);
      CHECK(resumed.err.find("already in") != std::string::npos);
      const std::string all = slurp(out);
      CHECK(all.substr(0, first.size()) == first);  // appended, nothing rewritten
      std::map<std::string, int> seen;
      auto rows = lines_of(all);
      if (std::string(fmt) == "jsonl") {
        for (const auto& l : rows) seen[nlohmann::json::parse(l)["image"].get<std::string>()]++;
        for (auto& [img, count] : seen) CHECK(count == 1);
      } else {
        CHECK(rows[0].rfind("image,", 0) == 0);
        CHECK(std::count(rows.begin(), rows.end(), rows[0]) == 1);  // one header
        std::string last;
        for (size_t i = 1; i < rows.size(); ++i) {
          const std::string img = rows[i].substr(0, rows[i].find(','));
          if (img != last) seen[img]++;
          last = img;
        }
        for (auto& [img, count] : seen) CHECK(count == 1);  // each image's rows in one block, once
      }
      CHECK(seen.size() == size_t(n));
    }
  }
  // A JSON array is all-or-nothing: an interrupted -o json run leaves no file.
  const std::string js = dir + "/out.json";
  // A list long enough that the run cannot finish before the signal (decoding got faster).
  std::string long_list;
  for (int k = 0; k < 40; ++k) long_list += list;
  write_file(dir + "/long.txt", long_list);
  // Signalled once its handler is in place (SigCgt has SIGINT's bit): a background job starts with
  // SIGINT ignored, so a signal that came earlier (a slow start: sanitizers, a loaded box) was lost
  // and the run completed.
  auto r = run_command("(" + bin() + " detect" + det_args() + "--format json -o " + q(js) + " --list " +
                       q(dir + "/long.txt") + ") & p=$!; t=0; "
                       "until [ $(( 0x$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$p/status 2>/dev/null || echo 0) & 2 )) -ne 0 ] "
                       "|| [ $t -ge 1500 ]; do sleep 0.02; t=$((t+1)); done; kill -INT $p; wait $p");
  CHECK(r.exit_code == 130);
  CHECK(!exists(js));
  // --resume refuses formats it cannot complete.
  for (const char* fmt : {"json", "darknet-json"}) {
    auto bad = run_command(bin() + " detect" + det_args() + "--format " + fmt + " -o " + q(js) + " --resume " + q(kDog));
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("all-or-nothing") != std::string::npos);
  }
}

TEST_CASE("cli #2: the wrong command for the network is refused with the right one", "[cli]") {
  auto d = run_command(bin() + " detect" + cls_args() + kDog);
  INFO(d.err);
  CHECK(d.exit_code == 2);
  CHECK(d.out.empty());
  CHECK(d.err == "mdfi: error: " + classifier_cfg() +
                     " is a classifier (its last layer is [softmax], no detection layer); run it with `mdfi classify`, "
                     "not `mdfi detect`\n");
  auto c = run_command(bin() + " classify" + det_args() + kDog);
  INFO(c.err);
  CHECK(c.exit_code == 2);
  CHECK(c.out.empty());
  CHECK(c.err.find("is a detector (it has a [yolo] layer); run it with `mdfi detect`") != std::string::npos);
  // Named networks alike (named_nets' task table), before any weights are looked for.
  const std::string empty = tmp_dir("cli_i2");
  const std::string env = "env -u MDFI_WEIGHTS MDFI_WEIGHTS_DIR=" + q(empty) + " ";
  auto n = run_command(env + bin() + " classify --net yolov3-tiny " + kDog);
  CHECK(n.exit_code == 2);
  CHECK(n.err == "mdfi: error: 'yolov3-tiny' is a detection network: run it with 'mdfi detect --net yolov3-tiny ...'\n");
  auto k = run_command(env + bin() + " detect --net darknet19 " + kDog);
  CHECK(k.exit_code == 2);
  CHECK(k.err.find("run it with 'mdfi classify --net darknet19") != std::string::npos);
  // The right command still runs.
  auto ok = run_command(bin() + " classify -q" + cls_args() + kDog);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("cli #4: every usage error is one 'mdfi: error:' line with a did-you-mean, exit 2", "[cli]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"detct " + std::string(kDog), "unknown command 'detct' (did you mean 'detect'?)"},
      {"", "no command given"},
      {"-q", "no command given"},
      {"detect -thresh 0.3 " + std::string(kDog), "-thresh: long options take two dashes (did you mean --thresh?)"},
      {"detect --thres 0.3 " + std::string(kDog), "unknown option --thres (did you mean --thresh?)"},
      {"detect -j abc " + std::string(kDog), "--threads: 'abc' is not a number (0 to 1024)"},
      {"detect --thresh 2 " + std::string(kDog), "--thresh: 2 is out of range (0 to 1)"},
      {"detect -j", "--threads needs a value"},
      {"classify --top 0 " + std::string(kDog), "--top: 0 is out of range (1 to 1000000)"},
      {"detect --format xml " + std::string(kDog), "--format: xml not in {text,json,jsonl,csv,darknet-json}"},
      {"detect --format jsn " + std::string(kDog), "--format: jsn not in {text,json,jsonl,csv,darknet-json} (did you mean json?)"},
      {"detect --net yolov3-tiy " + std::string(kDog), "unknown network 'yolov3-tiy' (did you mean 'yolov3-tiny'?)"},
  };
  for (const auto& [args, expect] : cases) {
    auto r = run_command(bin() + " " + args);
    INFO("mdfi " << args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("mdfi: error: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(expect) != std::string::npos);
  }
}

TEST_CASE("cli #5: bench validates its options", "[cli]") {
  for (const char* a : {" --backend foo", " -j -1", " -j abc", " --repeat 0"}) {
    auto r = run_command(bin() + " bench" + det_args() + a + " " + kDog);
    INFO(a << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  auto ok = run_command(bin() + " bench --repeat 1 --warmup 0 --backend cpu" + det_args() + kDog);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("cpu backend") != std::string::npos);
}

TEST_CASE("cli #7: list files skip comments and blanks, trim spaces, and refuse a directory", "[cli]") {
  const std::string dir = tmp_dir("cli_i7");
  write_file(dir + "/list.txt", std::string("# photos to check\n\n   \n") + kDog + "   \n\t" + kEagle +
                                    "\r\n# the end\n");
  auto r = run_command(bin() + " detect" + det_args() + "--format jsonl --list " + q(dir + "/list.txt"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  auto recs = lines_of(r.out);
  REQUIRE(recs.size() == 2);
  CHECK(nlohmann::json::parse(recs[0])["image"] == kDog);
  CHECK(nlohmann::json::parse(recs[1])["image"] == kEagle);
  CHECK(r.err.find("2 images: 2 ok, 0 failed") != std::string::npos);
  auto d = run_command(bin() + " detect" + det_args() + "--list " + q(dir));
  INFO(d.err);
  CHECK(d.exit_code == 2);
  CHECK(d.err == "mdfi: error: " + dir + ": is a directory; --list takes a text file with one image path per line "
                                         "(give a directory as a positional argument to run the images in it)\n");
}

TEST_CASE("cli #9: sizes take k/m/g in either case, a bare small number is refused; sizes name the stride", "[cli]") {
  for (const char* ok : {"10m", "10M", "10MB", "10mib", "10MiB", "0.01g", "10000k", "20000000"}) {
    auto r = run_command(bin() + " detect -q" + det_args() + "--max-mem " + ok + " " + kDog);
    INFO(ok << "\n" << r.err);
    CHECK(r.exit_code == 0);
  }
  auto bare = run_command(bin() + " detect" + det_args() + "--max-mem 64 " + kDog);
  CHECK(bare.exit_code == 2);
  CHECK(bare.err == "mdfi: error: --max-mem: size '64' has no unit, so it would mean 64 bytes; write 64M (or 64MiB), "
                    "or 64B if bytes are really meant\n");
  auto bytes = run_command(bin() + " detect" + det_args() + "--max-mem 64B " + kDog);
  CHECK(bytes.exit_code == 4);  // said explicitly: 64 bytes, over budget
  auto unit = run_command(bin() + " detect" + det_args() + "--max-mem 10q " + kDog);
  CHECK(unit.exit_code == 2);
  CHECK(unit.err.find("bad size unit in '10q'") != std::string::npos);

  // A route joining maps of different sizes: yolov3-tiny at width 333.
  auto w = run_command(bin() + " plan -c " + q(darknet_cfg("yolov3-tiny.cfg")) + " --width 333");
  INFO(w.err);
  CHECK(w.exit_code == 2);
  CHECK(w.err == "mdfi: error: --width 333: must be a multiple of 32, this network's stride (e.g. 320 or 352)\n");
  CHECK(run_command(bin() + " plan -c " + q(darknet_cfg("yolov3-tiny.cfg")) + " --width 352").exit_code == 0);

  // mdfi info keeps its columns aligned on grouped convolutions ("g24" is wider than "g8").
  const std::string dir = tmp_dir("cli_i9");
  write_file(dir + "/g.cfg", "[net]\nwidth=64\nheight=64\nchannels=3\n"
                             "[convolutional]\nfilters=24\nsize=1\nstride=1\npad=1\nactivation=leaky\n"
                             "[convolutional]\nfilters=24\ngroups=24\nsize=3\nstride=2\npad=1\nactivation=leaky\n"
                             "[convolutional]\nfilters=8\ngroups=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n");
  auto info = run_command(bin() + " info -c " + q(dir + "/g.cfg"));
  INFO(info.out << info.err);
  REQUIRE(info.exit_code == 0);
  auto rows = lines_of(info.out);
  REQUIRE(rows.size() >= 4);
  const size_t arrow = rows[1].find("->");
  for (int i = 2; i <= 3; ++i) CHECK(rows[size_t(i)].find("->") == arrow);
  CHECK(rows[2].find(" g24 ") != std::string::npos);
}

TEST_CASE("cli #6: --version, -v and bench name the SIMD micro-kernel chosen at run time", "[cli]") {
  // What this CPU has, from the kernel's own view of it.
  const std::string flags = slurp("/proc/cpuinfo");
  auto has = [&](const char* f) { return flags.find(std::string(" ") + f + " ") != std::string::npos ||
                                         flags.find(std::string(" ") + f + "\n") != std::string::npos; };
  std::string expect = "generic";
#if defined(__x86_64__)
  if (has("avx512f")) expect = "AVX-512 (the 'avx512' GEMM micro-kernel, chosen at run time";
  else if (has("avx2") && has("fma")) expect = "AVX2+FMA (the 'avx2' GEMM micro-kernel, chosen at run time";
#elif defined(__aarch64__) || defined(__ARM_NEON)
  expect = "NEON";
#endif
  auto v = run_command("env -u MDFI_KERNEL " + bin() + " --version");
  INFO(v.out);
  CHECK(v.exit_code == 0);
  CHECK(v.out.find("SIMD: " + expect) != std::string::npos);
  auto g = run_command("MDFI_KERNEL=generic " + bin() + " --version");
  CHECK(g.out.find("SIMD: generic (portable C++) (the 'generic' GEMM micro-kernel, forced by MDFI_KERNEL") !=
        std::string::npos);
  auto run = run_command("env -u MDFI_KERNEL " + bin() + " -v detect" + det_args() + kDog);
  CHECK(run.exit_code == 0);
  CHECK(run.err.find("; SIMD " + expect) != std::string::npos);
  auto b = run_command("env -u MDFI_KERNEL " + bin() + " bench --repeat 1 --warmup 0" + det_args() + kDog);
  CHECK(b.exit_code == 0);
  CHECK(b.out.find("; SIMD " + expect) != std::string::npos);
}

namespace {

// What a terminal shows for `raw`: '\r' returns to column 0, ESC[K erases to the end of the
// line, '\n' ends a line (the pty's own "\r\n" included).
std::vector<std::string> terminal_lines(const std::string& raw) {
  std::vector<std::string> out;
  std::string line;
  size_t col = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '\n') {
      out.push_back(line);
      line.clear();
      col = 0;
    } else if (c == '\r') {
      col = 0;
    } else if (c == '\033' && raw.compare(i, 3, "\033[K") == 0) {
      line.resize(col);
      i += 2;
    } else {
      if (col < line.size()) line[col] = c;
      else line += c;
      ++col;
    }
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("cli #3: progress and results on one terminal do not garble each other", "[cli]") {
  if (run_command("command -v script").exit_code != 0) MDFI_SKIP(Need::kOther, "no `script` (util-linux) to provide a terminal");
  const std::string dir = tmp_dir("cli_i3");
  const std::string cmd = bin() + " detect" + det_args() + "--thresh 0.5 " + kDog + " " + kEagle + " " + kDog;
  // stdout and stderr both on one pseudo-terminal, as in an interactive shell.
  auto r = run_command("script -qec " + q(cmd) + " /dev/null");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("ETA") != std::string::npos);  // the progress line was drawn
  int results = 0;
  for (const std::string& l : terminal_lines(r.out)) {
    INFO(l);
    if (l.find(".jpg:") != std::string::npos) {
      ++results;
      CHECK(l.rfind("/usr/share/darknet/data/", 0) == 0);  // the result starts its own line
      CHECK(l.find("ETA") == std::string::npos);
    }
  }
  CHECK(results == 3);
}

TEST_CASE("cli #10: boxes sorted by confidence; --classes, --crops, label files and AlexeyAB's JSON", "[cli]") {
  const std::string dir = tmp_dir("cli_i10");
  const std::string img = dir + "/dog.jpg";
  copy_file(kDog, img);
  // Random weights give many boxes of close confidence: the order matters.
  const std::string model = det_args() + "--thresh 0.2 ";
  auto all = run_command(bin() + " detect -q" + model + "--format json " + q(img));
  INFO(all.err);
  REQUIRE(all.exit_code == 0);
  auto dets = nlohmann::json::parse(all.out)[0]["detections"];
  REQUIRE(dets.size() >= 5);
  for (size_t i = 1; i < dets.size(); ++i) CHECK(dets[i - 1]["confidence"] >= dets[i]["confidence"]);
  auto top = run_command(bin() + " detect -q" + model + "--format json --top 3 " + q(img));
  auto top3 = nlohmann::json::parse(top.out)[0]["detections"];
  REQUIRE(top3.size() == 3);
  for (size_t i = 0; i < 3; ++i) CHECK(top3[i] == dets[i]);  // the head of the full list, same order

  // --classes by name or id: only those, in the same order.
  auto dogs = run_command(bin() + " detect -q" + model + "--format json --classes dog " + q(img));
  auto only = nlohmann::json::parse(dogs.out)[0]["detections"];
  std::vector<nlohmann::json> expect;
  for (const auto& d : dets)
    if (d["name"] == "dog") expect.push_back(d);
  REQUIRE(!expect.empty());
  CHECK(only == nlohmann::json(expect));
  auto by_id = run_command(bin() + " detect -q" + model + "--format json --classes 1 " + q(img));
  CHECK(nlohmann::json::parse(by_id.out)[0]["detections"] == nlohmann::json(expect));
  auto typo = run_command(bin() + " detect -q" + model + "--classes dgo " + q(img));
  CHECK(typo.exit_code == 2);
  CHECK(typo.err == "mdfi: error: --classes: 'dgo' is not a class of this network (did you mean 'dog'?)\n");

  // Label files (beside the image, AlexeyAB's rule) and AlexeyAB's JSON hold the same boxes.
  auto extra = run_command(bin() + " detect -q" + model + "--format darknet-json --save-labels --crops " +
                           q(dir + "/crops") + " --draw-ext png " + q(img));
  INFO(extra.err);
  REQUIRE(extra.exit_code == 0);
  auto ab = nlohmann::json::parse(extra.out);
  REQUIRE(ab.size() == 1);
  CHECK(ab[0]["frame_id"] == 1);
  CHECK(ab[0]["filename"] == img);
  auto objs = ab[0]["objects"];
  REQUIRE(objs.size() == dets.size());
  auto labels = lines_of(slurp(dir + "/dog.txt"));
  REQUIRE(labels.size() == dets.size());
  for (size_t i = 0; i < dets.size(); ++i) {
    const auto& d = dets[i];
    const auto& o = objs[i];
    CHECK(o["class_id"] == d["class_id"]);
    CHECK(o["name"] == d["name"]);
    CHECK(o["confidence"] == d["confidence"]);
    const auto& rc = o["relative_coordinates"];
    CHECK(rc["center_x"] == d["relative"]["cx"]);
    CHECK(rc["center_y"] == d["relative"]["cy"]);
    CHECK(rc["width"] == d["relative"]["w"]);
    CHECK(rc["height"] == d["relative"]["h"]);
    std::istringstream line(labels[i]);
    int cls = -1;
    double cx, cy, w, h;
    line >> cls >> cx >> cy >> w >> h;
    CHECK(cls == d["class_id"].get<int>());
    CHECK(std::abs(cx - d["relative"]["cx"].get<double>()) <= 6e-5);
    CHECK(std::abs(cy - d["relative"]["cy"].get<double>()) <= 6e-5);
    CHECK(std::abs(w - d["relative"]["w"].get<double>()) <= 6e-5);
    CHECK(std::abs(h - d["relative"]["h"].get<double>()) <= 6e-5);
    CHECK(std::regex_match(labels[i], std::regex("[0-9]+( -?[0-9]+\\.[0-9]{4}){4}")));
    // The crop is the box, pixels inclusive.
    const std::string crop = dir + "/crops/dog_" + std::to_string(i) + "_" + d["name"].get<std::string>() + ".png";
    REQUIRE(exists(crop));
    const std::string png = slurp(crop);
    REQUIRE(png.size() > 24);
    auto be32 = [&](size_t at) {
      return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16) |
             (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
    };
    CHECK(be32(16) == uint32_t(d["box"]["w"].get<int>() + 1));
    CHECK(be32(20) == uint32_t(d["box"]["h"].get<int>() + 1));
  }
  // The label file of an input that is itself an input (a list named like it) is refused.
  write_file(dir + "/dog.txt", img + "\n");
  auto clash = run_command(bin() + " detect -q" + model + "--save-labels --list " + q(dir + "/dog.txt"));
  CHECK(clash.exit_code == 2);
  CHECK(slurp(dir + "/dog.txt") == img + "\n");
}

TEST_CASE("cli #11: Darknet command lines run unchanged and give the boxes of the mdfi command", "[cli]") {
  const std::string dir = tmp_dir("cli_i11");
  const std::string img = dir + "/dog.jpg", img2 = dir + "/eagle.jpg";
  copy_file(kDog, img);
  copy_file(kEagle, img2);
  // Darknet's file names: CFG.cfg, WEIGHTS.weights, and a .data file naming the labels
  // (relative to the current directory, as Darknet opens it).
  copy_file(detector_cfg(), dir + "/tiny.cfg");
  copy_file(detector_weights(), dir + "/tiny.weights");
  copy_file(source_path("test/data/cli/tiny.names"), dir + "/tiny.names");
  write_file(dir + "/tiny.data", "classes = 2\n# labels\nnames = tiny.names\n");
  const std::string in_dir = "cd " + q(dir) + " && " + bin() + " ";
  const std::string mdfi_cmd = "detect -q -j1 -c tiny.cfg -w tiny.weights --names tiny.names --format darknet-json ";

  // detector test with -out: AlexeyAB's JSON equals mdfi's darknet-json for the same thresholds.
  auto dn = run_command(in_dir + "detector test tiny.data tiny.cfg tiny.weights dog.jpg -thresh 0.3 -ext_output "
                                 "-dont_show -out result.json -i 0");
  INFO(dn.err);
  REQUIRE(dn.exit_code == 0);
  CHECK(dn.err.find("mdfi: note: -i 0 ignored") != std::string::npos);
  auto ref = run_command(in_dir + mdfi_cmd + "--thresh 0.3 dog.jpg");
  REQUIRE(ref.exit_code == 0);
  const auto expect = nlohmann::json::parse(ref.out);
  CHECK(nlohmann::json::parse(slurp(dir + "/result.json")) == expect);
  CHECK(exists(dir + "/predictions.jpg"));  // Darknet's picture, in the current directory
  // Darknet's text: the header, then one "name: NN%\t(left_x: ...)" line per box.
  auto rows = lines_of(dn.out);
  REQUIRE(!rows.empty());
  CHECK(std::regex_match(rows[0], std::regex("dog\\.jpg: Predicted in [0-9]+\\.[0-9]{6} milli-seconds\\.")));
  const auto& objs = expect[0]["objects"];
  REQUIRE(objs.size() >= 1);
  CHECK(rows.size() == objs.size() + 1);
  std::multiset<std::string> want, got(rows.begin() + 1, rows.end());
  for (const auto& o : objs) {
    const auto& r = o["relative_coordinates"];
    const float cx = r["center_x"].get<float>(), cy = r["center_y"].get<float>();
    const float w = r["width"].get<float>(), h = r["height"].get<float>();
    char line[256];
    std::snprintf(line, sizeof line, "%s: %.0f%%\t(left_x: %4.0f   top_y: %4.0f   width: %4.0f   height: %4.0f)",
                  o["name"].get<std::string>().c_str(), o["confidence"].get<double>() * 100,
                  std::round((cx - w / 2) * 768), std::round((cy - h / 2) * 576), std::round(w * 768),
                  std::round(h * 576));
    want.insert(line);
  }
  // Coordinates from the 6-decimal JSON may round one pixel apart from the engine's floats:
  // names and percentages must match exactly, positions within a pixel.
  auto parse = [](const std::string& l) {
    std::array<double, 4> v{};
    std::sscanf(l.c_str() + l.find('\t'), "\t(left_x: %lf top_y: %lf width: %lf height: %lf)", &v[0], &v[1], &v[2],
                &v[3]);
    return std::make_pair(l.substr(0, l.find('\t')), v);
  };
  std::vector<std::pair<std::string, std::array<double, 4>>> pending;
  for (const auto& l : want) pending.push_back(parse(l));
  for (const auto& l : got) {
    INFO(l);
    const auto g = parse(l);
    auto it = std::find_if(pending.begin(), pending.end(), [&](const auto& w) {
      if (w.first != g.first) return false;
      for (int k = 0; k < 4; ++k)
        if (std::abs(w.second[size_t(k)] - g.second[size_t(k)]) > 1) return false;
      return true;
    });
    CHECK(it != pending.end());
    if (it != pending.end()) pending.erase(it);
  }
  CHECK(pending.empty());

  // No IMAGE: paths from stdin, one per line, as AlexeyAB reads them.
  write_file(dir + "/list.txt", "dog.jpg\neagle.jpg\n");
  auto piped = run_command(in_dir + "detector test tiny.data tiny.cfg tiny.weights -thresh 0.3 -out both.json < list.txt");
  INFO(piped.err);
  REQUIRE(piped.exit_code == 0);
  auto both = nlohmann::json::parse(slurp(dir + "/both.json"));
  REQUIRE(both.size() == 2);
  CHECK(both[0]["objects"] == expect[0]["objects"]);
  CHECK(both[1]["filename"] == "eagle.jpg");
  CHECK(both[1]["frame_id"] == 2);

  // -save_labels: the label file beside the image.
  auto lab = run_command(in_dir + "detector test tiny.data tiny.cfg tiny.weights dog.jpg -thresh 0.3 -save_labels");
  CHECK(lab.exit_code == 0);
  CHECK(lines_of(slurp(dir + "/dog.txt")).size() == objs.size());

  // darknet detect CFG WEIGHTS IMG reads cfg/coco.data from the current directory; threshold .24.
  REQUIRE(::mkdir((dir + "/cfg").c_str(), 0755) == 0);
  write_file(dir + "/cfg/coco.data", "names=tiny.names\n");
  auto det = run_command(in_dir + "detect tiny.cfg tiny.weights dog.jpg");
  auto det_ref = run_command(in_dir + "detect -q -j1 -c tiny.cfg -w tiny.weights --names tiny.names --thresh 0.24 "
                                      "--format json dog.jpg");
  INFO(det.err);
  REQUIRE(det.exit_code == 0);
  CHECK(lines_of(det.out).size() == nlohmann::json::parse(det_ref.out)[0]["detections"].size() + 1);
  CHECK(det.out.find("dog.jpg: Predicted in ") == 0);

  // classifier predict DATA CFG WEIGHTS IMG: top from -t (else the .data's top=, else 1).
  copy_file(classifier_cfg(), dir + "/cls.cfg");
  copy_file(classifier_weights(), dir + "/cls.weights");
  write_file(dir + "/cls.data", "labels=" + source_path("test/data/cli/tiny-classes.names") + "\ntop=2\n");
  auto cp = run_command(in_dir + "classifier predict cls.data cls.cfg cls.weights dog.jpg");
  auto cp_ref = run_command(in_dir + "classify -q " + cls_args() + "--top 2 dog.jpg");
  INFO(cp.err);
  REQUIRE(cp.exit_code == 0);
  auto a = lines_of(cp.out), b = lines_of(cp_ref.out);
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  CHECK(a[1] == b[1]);
  CHECK(a[2] == b[2]);
  auto cp1 = run_command(in_dir + "classifier predict cls.data cls.cfg cls.weights dog.jpg -t 1");
  CHECK(lines_of(cp1.out).size() == 2);

  // What mdfi does not do is one line naming what it does, exit 2; the .data file is an input.
  for (const char* bad : {"detector train tiny.data tiny.cfg", "detector test tiny.data tiny.cfg tiny.weights -map",
                          "detector demo tiny.data tiny.cfg tiny.weights", "classifier train cls.data cls.cfg",
                          "detector test tiny.data tiny.cfg tiny.weights dog.jpg -out tiny.data"}) {
    auto r = run_command(in_dir + bad);
    INFO(bad << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  // The camera demo points at the stream pipeline that replaces it.
  auto demo = run_command(in_dir + "detector demo tiny.data tiny.cfg tiny.weights -c 0");
  CHECK(demo.exit_code == 2);
  CHECK(demo.err.find("--stream -") != std::string::npos);
  CHECK(demo.err.find("rpicam-vid") != std::string::npos);
  CHECK(slurp(dir + "/tiny.data") == "classes = 2\n# labels\nnames = tiny.names\n");
}

TEST_CASE("cli #12: the docs match: README figures, the command table, a readable --mem-plot", "[cli]") {
  // The README's classify example prints the figure written beside it.
  const std::string readme = slurp(source_path("README.md"));
  std::smatch m;
  REQUIRE(std::regex_search(readme, m, std::regex("mdfi classify --net tiny -w tiny.weights --top 5 eagle.jpg +# ([0-9.]+%: [a-z ]+)\n")));
  const std::string tiny = shared_path("models/tiny-darknet-imagenet/tiny.weights");
  if (!tiny.empty()) {
    const std::string dir = tmp_dir("cli_i12_readme");
    copy_file(kEagle, dir + "/eagle.jpg");
    auto r = run_command("cd " + q(dir) + " && " + bin() + " classify -q --net tiny -w " + q(tiny) + " --top 5 eagle.jpg");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("\n" + m[1].str() + "\n") != std::string::npos);
  } else {
    WARN("SKIPPED: the README figure check needs ../shared/models/tiny-darknet-imagenet");
  }

  // app/README.md's command table has a row for every command of `mdfi --help`.
  const std::string manual = slurp(source_path("app/README.md"));
  auto help = run_command(bin() + " --help");
  std::istringstream lines(help.out.substr(help.out.find("Subcommands:")));
  std::string line;
  std::getline(lines, line);
  int commands = 0;
  while (std::getline(lines, line) && line.size() > 2 && line[0] == ' ') {
    if (line[2] == ' ') continue;  // a wrapped description goes on under its command
    const std::string cmd = line.substr(2, line.find(' ', 2) - 2);
    INFO(cmd);
    CHECK(manual.find("| `" + cmd + "` |") != std::string::npos);
    ++commands;
  }
  CHECK(commands >= 8);

  // --mem-plot: round y ticks evenly spaced from 0, layer indices under the bars, the peak
  // marked where the memory report puts it, Darknet's line only at its real height.
  const std::string dir = tmp_dir("cli_i12_plot");
  auto r = run_command(bin() + " detect -q" + det_args() + "--mem-plot " + q(dir + "/p.svg") + " --mem-report=" +
                       q(dir + "/r.json") + " " + kDog);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string svg = slurp(dir + "/p.svg");
  std::vector<double> ticks;
  const std::regex ytick("class='ytick' data-bytes='([0-9]+)'"), xtick("class='xtick'[^>]*>([0-9]+)<");
  for (std::sregex_iterator it(svg.begin(), svg.end(), ytick), end; it != end; ++it)
    ticks.push_back(std::stod((*it)[1]));
  REQUIRE(ticks.size() >= 4);
  CHECK(ticks[0] == 0);
  const double step = ticks[1];
  const double mant = step / std::pow(10.0, std::floor(std::log10(step)));
  CHECK((mant == 1 || mant == 2 || mant == 5));
  for (size_t i = 1; i < ticks.size(); ++i) CHECK(ticks[i] == step * double(i));
  auto report = nlohmann::json::parse(slurp(dir + "/r.json"));
  size_t peak = 0;
  int peak_layer = -1;
  for (const auto& l : report["layers"])
    if (l["heap_peak"].get<size_t>() > peak) peak = l["heap_peak"].get<size_t>(), peak_layer = l["layer"].get<int>();
  CHECK(svg.find("<g id='peak' data-layer='" + std::to_string(peak_layer) + "' data-bytes='" + std::to_string(peak) +
                 "'") != std::string::npos);
  CHECK(ticks.back() >= double(peak));
  int xticks = 0;
  for (std::sregex_iterator it(svg.begin(), svg.end(), xtick), end; it != end; ++it)
    ++xticks;
  CHECK(xticks == int(report["layers"].size()));  // 4 layers: every index shown
  if (std::regex_search(svg, m, std::regex("<line id='darknet' data-bytes='([0-9]+)'")))
    CHECK(std::stod(m[1]) <= ticks.back());
  else
    CHECK(svg.find("id='darknet-note'") != std::string::npos);
}
