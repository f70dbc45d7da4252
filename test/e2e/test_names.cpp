// Labels without flags (issue 16, item 4) and scripts/get-weights.sh (issue 20, item 8), through
// the real binary and script: a .names beside the cfg, --data with Darknet's names=/classes=, the
// mismatch warning, a .data file given to --names refused; the download script's usage, its
// one-line failure offline, and its size and checksum checks (a file:// mirror, no network).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

std::string quote(const std::string& s) { return "'" + s + "'"; }
std::string bin() { return mdfi_binary(); }
int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
std::string numbered_names(const std::string& prefix, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += prefix + std::to_string(i) + "\n";
  return s;
}

// yolov3-tiny's cfg under another name, with generated weights, in a fresh directory.
struct Model {
  std::string dir, cfg, weights, image;
};
Model make_model(const std::string& name) {
  Model m;
  m.dir = tmp_dir(name);
  m.cfg = m.dir + "/cfg/detector.cfg";
  REQUIRE(run_command("mkdir -p " + quote(m.dir + "/cfg") + " " + quote(m.dir + "/data") + " && cp " +
                      quote(source_path("cfg/yolov3-tiny.cfg")) + " " + quote(m.cfg))
              .exit_code == 0);
  m.weights = generated_weights(source_path("cfg/yolov3-tiny.cfg"), "names-yolov3-tiny");
  REQUIRE(!m.weights.empty());
  m.image = "/usr/share/darknet/data/eagle.jpg";
  return m;
}

// Class names in a detect run's text output (random weights give boxes at threshold 0.1; the
// input is shrunk to 160x160 to keep the test fast, the weights do not depend on it).
std::vector<std::string> names_in(const std::string& out) {
  std::vector<std::string> names;
  std::istringstream lines(out);
  std::string line;
  std::getline(lines, line);  // the image
  while (std::getline(lines, line)) names.push_back(line.substr(0, line.find(": ")));
  return names;
}

std::string detect(const Model& m, const std::string& extra, const std::string& cwd = "") {
  return (cwd.empty() ? "" : "cd " + quote(cwd) + " && ") + bin() + " detect --thresh 0.1 --top 5 --width 160 --height 160 --cfg " + quote(m.cfg) +
         " -w " + quote(m.weights) + " " + extra + " " + m.image;
}

bool all_start_with(const std::vector<std::string>& names, const std::string& prefix) {
  if (names.empty()) return false;
  for (const auto& n : names)
    if (n.rfind(prefix, 0) != 0) return false;
  return true;
}

}  // namespace

TEST_CASE("names: --cfg takes CFG_STEM.names beside it, else the only .names there", "[cli]") {
  const Model m = make_model("names_beside");
  auto none = run_command(detect(m, ""));
  INFO(none.err);
  REQUIRE(none.exit_code == 0);
  CHECK(all_start_with(names_in(none.out), "class "));  // nothing beside it: indices

  write_file(m.dir + "/cfg/coco.names", numbered_names("only", 80));
  auto only = run_command(detect(m, ""));
  CHECK(all_start_with(names_in(only.out), "only"));
  CHECK(only.err.find("warning") == std::string::npos);

  write_file(m.dir + "/cfg/other.names", numbered_names("other", 80));
  auto two = run_command(detect(m, ""));
  CHECK(all_start_with(names_in(two.out), "class "));  // two candidates: no guess

  write_file(m.dir + "/cfg/detector.names", numbered_names("stem", 80));
  auto stem = run_command(detect(m, ""));
  CHECK(all_start_with(names_in(stem.out), "stem"));
  auto given = run_command(detect(m, "--names " + quote(m.dir + "/cfg/other.names")));
  CHECK(all_start_with(names_in(given.out), "other"));
}

TEST_CASE("names: --data reads names= (relative as Darknet, or to the .data file) and classes=", "[cli]") {
  const Model m = make_model("names_data");
  write_file(m.dir + "/data/coco.names", numbered_names("data", 80));
  // Darknet's layout: cfg/coco.data says names = data/coco.names, relative to the directory above.
  write_file(m.dir + "/cfg/coco.data",
             "classes= 80\ntrain  = /home/pjreddie/data/coco/trainvalno5k.txt\nvalid  = coco_testdev\n"
             "names = data/coco.names\nbackup = /home/pjreddie/backup/\neval=coco\n");
  auto from_root = run_command(detect(m, "--data cfg/coco.data", m.dir));  // as Darknet: from the working directory
  INFO(from_root.err);
  CHECK(from_root.exit_code == 0);
  CHECK(all_start_with(names_in(from_root.out), "data"));
  CHECK(from_root.err.find("warning") == std::string::npos);
  auto from_elsewhere = run_command(detect(m, "--data " + quote(m.dir + "/cfg/coco.data"), "/"));
  CHECK(all_start_with(names_in(from_elsewhere.out), "data"));

  write_file(m.dir + "/cfg/wrong.data", "classes=20\nnames=data/coco.names\n");
  auto wrong = run_command(detect(m, "--data " + quote(m.dir + "/cfg/wrong.data")));
  CHECK(wrong.exit_code == 0);
  CHECK(wrong.err.find("classes=20, the network has 80 classes") != std::string::npos);

  write_file(m.dir + "/cfg/missing.data", "classes=80\nnames=data/nope.names\n");
  auto missing = run_command(detect(m, "--data " + quote(m.dir + "/cfg/missing.data")));
  CHECK(missing.exit_code == 1);
  CHECK(missing.out.empty());
  CHECK(missing.err.find(m.dir + "/cfg/missing.data:2: names=data/nope.names: no such file") != std::string::npos);

  auto both = run_command(detect(m, "--data " + quote(m.dir + "/cfg/coco.data") + " --names " + quote(m.dir + "/data/coco.names")));
  CHECK(both.exit_code == 2);
}

TEST_CASE("names: a .data file given to --names is refused naming it; a short list warns once", "[cli]") {
  const Model m = make_model("names_refuse");
  const std::string data = m.dir + "/cfg/coco.data";
  write_file(data, "classes= 80\nvalid  = coco_testdev\nnames = data/coco.names\n");
  auto r = run_command(detect(m, "--names " + quote(data)));
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find(data) != std::string::npos);
  CHECK(r.err.find("--data") != std::string::npos);
  // Any name: the content gives it away.
  const std::string renamed = m.dir + "/cfg/labels.txt";
  write_file(renamed, "classes= 80\nnames = data/coco.names\n");
  CHECK(run_command(detect(m, "--names " + quote(renamed))).exit_code == 2);

  const std::string short_list = m.dir + "/three.names";
  write_file(short_list, "a\nb\nc\n");
  auto s = run_command(detect(m, "--names " + quote(short_list)));
  CHECK(s.exit_code == 0);
  const std::string warning = short_list + " has 3 names, the network has 80 classes";
  CHECK(s.err.find(warning) != std::string::npos);
  CHECK(s.err.find(warning) == s.err.rfind(warning));  // once, not per image or box
  auto q = run_command(detect(m, "-q --names " + quote(short_list)));  // -q: results and errors only
  CHECK(q.err.empty());
  // Blank lines at the end are no names: no warning.
  write_file(m.dir + "/trailing.names", numbered_names("t", 80) + "\n\n");
  CHECK(run_command(detect(m, "--names " + quote(m.dir + "/trailing.names"))).err.find("warning") == std::string::npos);
  // A longer list warns, unless a .data file says the network uses its first classes= names.
  write_file(m.dir + "/long.names", numbered_names("l", 90));
  auto longer = run_command(detect(m, "--names " + quote(m.dir + "/long.names")));
  CHECK(longer.err.find("has 90 names, the network has 80 classes; the first ones are used") != std::string::npos);
  write_file(m.dir + "/long.data", "classes=80\nnames=" + m.dir + "/long.names\n");
  auto declared = run_command(detect(m, "--data " + quote(m.dir + "/long.data")));
  CHECK(declared.exit_code == 0);
  CHECK(declared.err.find("warning") == std::string::npos);
  CHECK(all_start_with(names_in(declared.out), "l"));
  // Classifiers: the 1000-class tiny with the built-in ImageNet list gives no warning.
  auto c = run_command(bin() + " classify --net tiny -w " + quote(generated_weights(source_path("cfg/tiny.cfg"), "names-tiny")) +
                       " " + m.image);
  CHECK(c.exit_code == 0);
  CHECK(c.err.find("warning") == std::string::npos);
}

TEST_CASE("get-weights: usage, a one-line failure offline, size and checksum checks", "[cli]") {
  const std::string script = source_path("scripts/get-weights.sh");
  auto help = run_command(script + " --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("usage: get-weights.sh NAME") != std::string::npos);
  CHECK(help.out.find("yolov4-tiny") != std::string::npos);
  auto unknown = run_command(script + " no-such-net");
  CHECK(unknown.exit_code == 2);
  CHECK(count_lines(unknown.err) == 1);

  const std::string dir = tmp_dir("get_weights");
  const std::string env = "MDFI_WEIGHTS_DIR=" + quote(dir + "/weights") + " ";
  // Offline: nothing listens on port 9 of this machine.
  auto off = run_command(env + "MDFI_WEIGHTS_MIRROR=http://127.0.0.1:9 " + script + " yolo-fastest-1.1");
  INFO(off.err);
  CHECK(off.exit_code == 1);
  CHECK(count_lines(off.err) == 1);
  CHECK(off.err.find("download failed") != std::string::npos);
  CHECK(off.err.find("put it at " + dir + "/weights/yolo-fastest-1.1.weights") != std::string::npos);
  CHECK(off.err.find("Warning") == std::string::npos);
  CHECK(!exists(dir + "/weights/yolo-fastest-1.1.weights.part"));

  // A mirror holding a file of the right size is accepted; a truncated one is not.
  const std::string mirror = dir + "/mirror";
  REQUIRE(run_command("mkdir -p " + quote(mirror)).exit_code == 0);
  REQUIRE(run_command(bin() + " -q gen-weights --net yolo-fastest-1.1 -o " + quote(mirror + "/yolo-fastest-1.1.weights")).exit_code == 0);
  auto ok = run_command(env + "MDFI_WEIGHTS_MIRROR=file://" + mirror + " " + script + " yolo-fastest-1.1");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == dir + "/weights/yolo-fastest-1.1.weights\n");
  CHECK(run_command("cmp " + quote(mirror + "/yolo-fastest-1.1.weights") + " " + quote(dir + "/weights/yolo-fastest-1.1.weights")).exit_code == 0);

  REQUIRE(run_command("head -c 100000 " + quote(mirror + "/yolo-fastest-1.1.weights") + " > " +
                      quote(mirror + "/yolo-fastest-1.1-xl.weights")).exit_code == 0);
  auto small = run_command(env + "MDFI_WEIGHTS_MIRROR=file://" + mirror + " " + script + " yolo-fastest-1.1-xl");
  CHECK(small.exit_code == 1);
  CHECK(small.err.find("gave 100000 bytes") != std::string::npos);
  CHECK(small.err.find("discarded") != std::string::npos);
  CHECK(!exists(dir + "/weights/yolo-fastest-1.1-xl.weights"));

  // Right size, wrong bytes: the published SHA-256 of yolov3-tiny catches it.
  REQUIRE(run_command(bin() + " -q gen-weights --net yolov3-tiny -o " + quote(mirror + "/yolov3-tiny.weights")).exit_code == 0);
  auto sha = run_command(env + "MDFI_WEIGHTS_MIRROR=file://" + mirror + " " + script + " yolov3-tiny");
  CHECK(sha.exit_code == 1);
  CHECK(sha.err.find("SHA-256 mismatch") != std::string::npos);
  CHECK(!exists(dir + "/weights/yolov3-tiny.weights"));

  // The script's table is mdfi's: names, files, URLs, checksums and parameter counts.
  auto list = run_command(script + " --list");
  auto models = run_command(bin() + " models --porcelain");
  REQUIRE(models.exit_code == 0);
  std::istringstream in(models.out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    REQUIRE(f.size() == 10);
    INFO(line);
    CHECK(list.out.find(f[0] + "\t" + f[5] + "\t" + f[6] + "\t" + f[7] + "\t" + f[9] + "\n") != std::string::npos);
    ++n;
  }
  CHECK(n == count_lines(list.out));
}

TEST_CASE("names: completion offers each command only the networks of its task", "[cli]") {
  const std::string script = source_path("scripts/mdfi-completion.bash");
  const std::string sh = tmp_dir("names_completion") + "/complete.sh";
  auto complete = [&](const std::string& words) {
    write_file(sh, "source " + quote(script) + "\nCOMP_WORDS=(" + quote(bin()) + " " + words +
                       ")\nCOMP_CWORD=$((${#COMP_WORDS[@]}-1))\n_mdfi\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n");
    return "\n" + run_command("bash " + quote(sh)).out;
  };
  const std::string det = complete("detect --net ''"), cls = complete("classify --net ''"), plan = complete("plan --net ''");
  for (const char* d : {"yolov4-tiny", "yolov7-tiny", "yolo-fastest-1.1-xl", "mobilenetv2-yolov3-nano"}) {
    CHECK(det.find("\n" + std::string(d) + "\n") != std::string::npos);
    CHECK(cls.find("\n" + std::string(d) + "\n") == std::string::npos);
    CHECK(plan.find("\n" + std::string(d) + "\n") != std::string::npos);
  }
  for (const char* c : {"alexnet", "tiny", "darknet19", "resnet50"}) {
    CHECK(cls.find("\n" + std::string(c) + "\n") != std::string::npos);
    CHECK(det.find("\n" + std::string(c) + "\n") == std::string::npos);
  }
}
