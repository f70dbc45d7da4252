// Issue 45 (one corpus split across many machines: --shard, `mdfi merge`, the GNU parallel
// recipe of app/README.md) and issue 41 items 3-4 (no output replaces a picture without
// --force; --resume keyed by canonical paths, and by frame for a stream read from a file),
// through the real binary on the tiny networks of test/data/cli (generated weights).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

const char* kData = "/usr/share/darknet/data/";

std::string q(const std::string& s) { return "'" + s + "'"; }  // test paths hold no single quote
std::string bin() { return mdfi_binary(); }
void copy_file(const std::string& from, const std::string& to) { write_file(to, slurp(from)); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) v.push_back(line);
  return v;
}

std::string det_args() {
  const std::string cfg = source_path("test/data/cli/tiny-detector.cfg");
  return " -j1 -c " + q(cfg) + " -w " + q(generated_weights(cfg, "cli-tiny-detector")) + " --names " +
         q(source_path("test/data/cli/tiny.names")) + " ";
}
std::string cls_args() {
  const std::string cfg = source_path("test/data/cli/tiny-classifier.cfg");
  return " -j1 -c " + q(cfg) + " -w " + q(generated_weights(cfg, "cli-tiny-classifier")) + " --names " +
         q(source_path("test/data/cli/tiny-classes.names")) + " ";
}

// Nine inputs in dir/batch: six photos and three broken files (text, empty, truncated).
std::vector<std::string> make_corpus(const std::string& dir) {
  const std::string b = dir + "/batch";
  ::mkdir(b.c_str(), 0755);
  std::vector<std::string> names;
  for (const char* p : {"dog", "eagle", "giraffe", "horses", "kite", "person"}) {
    copy_file(std::string(kData) + p + ".jpg", b + "/" + p + ".jpg");
    names.push_back(b + "/" + p + ".jpg");
  }
  write_file(b + "/notes.jpg", "a text file, not a JPEG\n");
  write_file(b + "/empty.jpg", "");
  write_file(b + "/cut.jpg", slurp(std::string(kData) + "dog.jpg").substr(0, 5000));
  for (const char* p : {"notes", "empty", "cut"}) names.push_back(b + "/" + p + ".jpg");
  return names;
}

// A record without what differs between runs (time, read time) or says which shard ran it.
std::string normal(nlohmann::json j) {
  for (const char* k : {"time_ms", "read_at", "shard", "path"}) j.erase(k);
  return j.dump();
}

std::multiset<std::string> records(const std::string& jsonl, const std::string& shard = "") {
  std::multiset<std::string> out;
  for (const std::string& l : lines_of(jsonl)) {
    auto j = nlohmann::json::parse(l);
    if (!shard.empty()) {
      CHECK(j["shard"] == shard);
      CHECK(j["path"].get<std::string>().front() == '/');
    }
    out.insert(normal(j));
  }
  return out;
}

std::set<std::string> images_of(const std::string& jsonl) {
  std::set<std::string> s;
  for (const std::string& l : lines_of(jsonl)) s.insert(nlohmann::json::parse(l)["image"].get<std::string>());
  return s;
}

}  // namespace

TEST_CASE("cli #45: --shard 1/3..3/3 of a mixed batch give every input once, the single run's records", "[cli]") {
  const std::string dir = tmp_dir("cli_shard");
  const std::vector<std::string> inputs = make_corpus(dir);
  auto whole = run_command("cd " + q(dir) + " && " + bin() + " detect -q" + det_args() + "--format jsonl batch/");
  INFO(whole.err);
  REQUIRE(whole.exit_code == 3);  // three broken inputs
  const auto want = records(whole.out);
  REQUIRE(want.size() == 9);

  // A folder, a list in one order and the same list reversed, `--list -`: the same split.
  std::string list, reversed;
  for (const auto& p : inputs) list += p + "\n";
  for (auto it = inputs.rbegin(); it != inputs.rend(); ++it) reversed += *it + "\n";
  write_file(dir + "/list.txt", list);
  write_file(dir + "/reversed.txt", "# the same inputs, last first\n" + reversed);
  std::multiset<std::string> got;
  std::set<std::string> seen;
  size_t total = 0;
  for (int k = 1; k <= 3; ++k) {
    const std::string s = std::to_string(k) + "/3";
    auto r = run_command("cd " + q(dir) + " && " + bin() + " detect" + det_args() + "--format jsonl --shard " + s +
                         " -o shard" + std::to_string(k) + ".jsonl batch/");
    INFO(s << "\n" << r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 3));
    CHECK(r.err.find("--shard " + s + ": ") != std::string::npos);
    const std::string file = slurp(dir + "/shard" + std::to_string(k) + ".jsonl");
    auto mine = records(file, s);
    total += mine.size();
    got.insert(mine.begin(), mine.end());
    std::set<std::string> paths;
    for (const auto& l : lines_of(file)) paths.insert(nlohmann::json::parse(l)["path"].get<std::string>());
    for (const auto& p : paths) CHECK(seen.insert(p).second);  // in no other shard
    // The same shard from the list, the reversed list, and stdin: the same inputs.
    for (const char* how : {"--list list.txt", "--list reversed.txt", "--list - < reversed.txt"}) {
      auto l = run_command("cd " + q(dir) + " && " + bin() + " detect -q" + det_args() + "--format jsonl --shard " +
                           s + " " + how);
      INFO(how << "\n" << l.err);
      std::set<std::string> lp;
      for (const auto& line : lines_of(l.out)) lp.insert(nlohmann::json::parse(line)["path"].get<std::string>());
      CHECK(lp == paths);
    }
  }
  CHECK(total == 9);
  CHECK(seen.size() == 9);
  CHECK(got == want);

  // merge: the three files, in any order, give one record per input, sorted by path.
  auto m = run_command("cd " + q(dir) + " && " + bin() + " merge shard3.jsonl shard1.jsonl shard2.jsonl -o all.jsonl");
  INFO(m.err);
  CHECK(m.exit_code == 0);
  CHECK(m.err.find("9 inputs (0 duplicates") != std::string::npos);
  const std::string merged = slurp(dir + "/all.jsonl");
  CHECK(records(merged) == want);
  auto m2 = run_command("cd " + q(dir) + " && " + bin() + " merge shard1.jsonl shard2.jsonl shard3.jsonl shard1.jsonl");
  CHECK(m2.exit_code == 0);
  CHECK(m2.out == merged);  // duplicates dropped, the same bytes whatever the order
  // A shard missing is said; a file that is not JSONL is an error naming its line.
  auto m3 = run_command("cd " + q(dir) + " && " + bin() + " merge shard1.jsonl shard3.jsonl");
  CHECK(m3.err.find("no records of shard 2/3") != std::string::npos);
  auto m4 = run_command("cd " + q(dir) + " && " + bin() + " merge shard1.jsonl list.txt");
  CHECK(m4.exit_code == 1);
  CHECK(m4.err.find("list.txt:1: not an mdfi JSONL record") != std::string::npos);

  // classify shards too.
  size_t cls_total = 0;
  for (int k = 1; k <= 2; ++k) {
    auto c = run_command("cd " + q(dir) + " && " + bin() + " classify -q" + cls_args() + "--format jsonl --shard " +
                         std::to_string(k) + "/2 batch/");
    cls_total += lines_of(c.out).size();
  }
  CHECK(cls_total == 9);
}

TEST_CASE("cli #45: bad --shard values, --shard auto from Slurm and Kubernetes, --stream refuses it", "[cli]") {
  const std::string img = std::string(kData) + "dog.jpg";
  for (const std::string bad : {"0/3", "4/3", "x", "3", "1/0", "-1/3", "2/3/3", "auto", "auto/3"}) {
    auto r = run_command("env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX " + bin() + " detect" + det_args() +
                         "--shard " + bad + " " + q(img));
    INFO(bad << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("mdfi: error: --shard ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  // Which shard dog.jpg falls in, from K/N, to compare with what auto derives.
  auto shard_of = [&](const std::string& env, const std::string& spec) {
    auto r = run_command("env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX " + env + " " + bin() + " detect" +
                         det_args() + "--format jsonl --shard " + spec + " " + q(img));
    INFO(env << " " << spec << "\n" << r.err);
    CHECK(r.exit_code == 0);
    return r.out.empty() ? std::string("-") : nlohmann::json::parse(lines_of(r.out)[0])["shard"].get<std::string>();
  };
  std::string owner;
  for (int k = 1; k <= 3 && owner.empty(); ++k)
    if (shard_of("", std::to_string(k) + "/3") != "-") owner = std::to_string(k);
  REQUIRE(!owner.empty());
  const int k = std::stoi(owner);
  // Slurm: --array=1-3 (ids from 1) and --array=0-2 (from 0) both map the first task to shard 1.
  CHECK(shard_of("SLURM_ARRAY_TASK_ID=" + std::to_string(k) + " SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3",
                 "auto") == owner + "/3");
  CHECK(shard_of("SLURM_ARRAY_TASK_ID=" + std::to_string(k - 1) + " SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=3",
                 "auto") == owner + "/3");
  // Kubernetes: JOB_COMPLETION_INDEX from 0, the count from auto/N or MDFI_SHARD_COUNT.
  CHECK(shard_of("JOB_COMPLETION_INDEX=" + std::to_string(k - 1), "auto/3") == owner + "/3");
  CHECK(shard_of("JOB_COMPLETION_INDEX=" + std::to_string(k - 1) + " MDFI_SHARD_COUNT=3", "auto") == owner + "/3");
  for (const std::string env : {"JOB_COMPLETION_INDEX=0", "JOB_COMPLETION_INDEX=3 MDFI_SHARD_COUNT=3",
                                 "SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3"}) {
    auto r = run_command("env " + env + " " + bin() + " detect" + det_args() + "--shard auto " + q(img));
    INFO(env << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  auto s = run_command(bin() + " detect" + det_args() + "--shard 1/2 --stream " + q(img));
  CHECK(s.exit_code == 2);
  CHECK(s.err.find("--shard splits a batch") != std::string::npos);
}

TEST_CASE("cli #45: --resume of one shard finishes it; another shard's file is refused", "[cli]") {
  const std::string dir = tmp_dir("cli_shard_resume");
  make_corpus(dir);
  const std::string cmd = "cd " + q(dir) + " && " + bin() + " detect" + det_args() + "--format jsonl ";
  // The shard with the most inputs, run whole, then cut to its first record plus half a line.
  std::string best;
  size_t most = 0;
  for (int k = 1; k <= 3; ++k) {
    const std::string f = "full" + std::to_string(k) + ".jsonl";
    run_command(cmd + "-q --shard " + std::to_string(k) + "/3 -o " + f + " batch/");
    const size_t n = lines_of(slurp(dir + "/" + f)).size();
    if (n > most) most = n, best = std::to_string(k);
  }
  REQUIRE(most >= 2);
  const std::string full = slurp(dir + "/full" + best + ".jsonl");
  const std::string first = full.substr(0, full.find('\n') + 1);
  write_file(dir + "/part.jsonl", first + full.substr(first.size(), 30));
  auto r = run_command(cmd + "--shard " + best + "/3 -o part.jsonl --resume ./batch/");
  INFO(r.err);
  CHECK((r.exit_code == 0 || r.exit_code == 3));
  CHECK(r.err.find("--resume: 1 of " + std::to_string(most) + " inputs already in part.jsonl") != std::string::npos);
  const std::string done = slurp(dir + "/part.jsonl");
  CHECK(done.substr(0, first.size()) == first);
  // The same records by path (the resumed part names its inputs ./batch/...).
  auto by_path = [](const std::string& jsonl) {
    std::map<std::string, std::string> m;
    for (const auto& l : lines_of(jsonl)) {
      auto j = nlohmann::json::parse(l);
      const std::string path = j["path"];
      j.erase("image");
      CHECK(m.emplace(path, normal(j)).second);
    }
    return m;
  };
  records(done, best + "/3");
  CHECK(by_path(done) == by_path(full));
  CHECK(images_of(done).size() == most);
  // Resumed again: nothing left to do, nothing written.
  auto again = run_command(cmd + "--shard " + best + "/3 -o part.jsonl --resume " + q(dir + "/batch"));
  CHECK(again.err.find(std::to_string(most) + " of " + std::to_string(most) + " inputs already") != std::string::npos);
  CHECK(slurp(dir + "/part.jsonl") == done);
  // The file of another shard (or of an unsharded run) is not this shard's to complete.
  const std::string other = best == "1" ? "2" : "1";
  auto wrong = run_command(cmd + "--shard " + other + "/3 -o part.jsonl --resume batch/");
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.err.find("holds records of shard " + best + "/3") != std::string::npos);
  CHECK(slurp(dir + "/part.jsonl") == done);
}

TEST_CASE("cli #45: app/README.md's GNU parallel recipe runs as written: 3 local workers, merged = one run", "[cli]") {
  if (run_command("command -v parallel").exit_code != 0)
    MDFI_SKIP(Need::kOther, "GNU parallel is not installed (scripts/setup-debian.sh installs it)");
  const std::string fastest = shared_path("models/yolo-fastest-1.1-coco");
  if (fastest.empty()) MDFI_SKIP(Need::kShared, "needs ../shared/models/yolo-fastest-1.1-coco");
  // The recipe: the fenced block after the "parallel recipe" marker. Its HOSTS line becomes
  // this machine three times (3/:), PHOTOS the test's folder; everything else runs as printed.
  const std::string manual = slurp(source_path("app/README.md"));
  std::smatch m;
  REQUIRE(std::regex_search(manual, m, std::regex("<!-- tested: parallel recipe -->\\s*```sh\\n([^`]*)```")));
  std::string recipe = m[1];
  REQUIRE(std::regex_search(recipe, std::regex("(^|\\n)HOSTS=")));
  REQUIRE(std::regex_search(recipe, std::regex("(^|\\n)PHOTOS=")));
  const std::string dir = tmp_dir("cli_shard_parallel");
  make_corpus(dir);
  recipe = std::regex_replace(recipe, std::regex("(^|\\n)HOSTS=[^\\n]*"), "$1HOSTS=3/:");
  recipe = std::regex_replace(recipe, std::regex("(^|\\n)PHOTOS=[^\\n]*"), "$1PHOTOS=" + dir + "/batch");
  write_file(dir + "/recipe.sh", recipe);
  // `mdfi` on PATH; --net yolo-fastest-1.1 finds its weights through MDFI_WEIGHTS_DIR.
  const std::string bindir = dir + "/bin";
  ::mkdir(bindir.c_str(), 0755);
  REQUIRE(::symlink(bin().c_str(), (bindir + "/mdfi").c_str()) == 0);
  ::mkdir((dir + "/run").c_str(), 0755);
  auto r = run_command("cd " + q(dir + "/run") + " && HOME=" + q(dir) + " PATH=" + q(bindir) +
                       ":\"$PATH\" MDFI_WEIGHTS_DIR=" + q(fastest) + " bash ../recipe.sh < /dev/null");
  INFO(recipe << "\n" << r.err);
  CHECK(r.exit_code == 0);
  const std::string merged = slurp(dir + "/run/all.jsonl");
  auto one = run_command("cd " + q(dir + "/run") + " && MDFI_WEIGHTS_DIR=" + q(fastest) + " " + bin() +
                         " detect -q --net yolo-fastest-1.1 -j 1 --format jsonl " + q(dir + "/batch"));
  INFO(one.err);
  CHECK(one.exit_code == 3);
  CHECK(lines_of(merged).size() == 9);
  CHECK(records(merged) == records(one.out));
  std::set<std::string> shards;
  for (const auto& l : lines_of(merged)) shards.insert(nlohmann::json::parse(l)["shard"].get<std::string>());
  CHECK(shards.size() > 1);  // the work was split
}

TEST_CASE("cli #41.3: no output replaces a picture that is not an input, unless --force", "[cli]") {
  const std::string dir = tmp_dir("cli_photo_guard");
  const std::string dog = dir + "/dog.jpg", person = dir + "/person.jpg";
  copy_file(std::string(kData) + "dog.jpg", dog);
  copy_file(std::string(kData) + "person.jpg", person);
  const std::string photo = slurp(person);
  // Pictures told by their first bytes, whatever their names.
  write_file(dir + "/png.txt", std::string("\x89PNG\r\n\x1a\n", 8) + std::string(40, '\0'));
  write_file(dir + "/gif.svg", "GIF89a" + std::string(40, '\0'));
  write_file(dir + "/bmp.json", "BM" + std::string(60, '\0'));
  write_file(dir + "/webp.jsonl", std::string("RIFF\x10\0\0\0WEBPVP8 ", 16) + std::string(40, '\0'));
  write_file(dir + "/tiff.csv", std::string("II*\0", 4) + std::string(40, '\0'));
  write_file(dir + "/jpeg.out", slurp(person));
  const std::string run = bin() + " detect" + det_args() + q(dog) + " ";
  const std::vector<std::string> attempts = {
      "-o " + q(person),
      "--format jsonl -o " + q(person),
      "--format json -o " + q(person),
      "-o " + q(dir + "/png.txt"),
      "--format csv -o " + q(dir + "/tiff.csv"),
      "--format jsonl -o " + q(dir + "/webp.jsonl"),
      "-o " + q(dir + "/jpeg.out"),
      "--mem-report=" + q(dir + "/bmp.json"),
      "--mem-plot " + q(dir + "/gif.svg"),
  };
  for (const std::string& a : attempts) {
    const std::string target = a.substr(a.rfind(' ') + 1);
    const std::string before = slurp(target.substr(target.find('\'') + 1, target.rfind('\'') - target.find('\'') - 1));
    auto r = run_command(run + a);
    INFO(a << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("picture; refusing to replace it") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK(slurp(person) == photo);
  // Label files: dog.txt beside dog.jpg (--save-labels) or in --labels-dir, when a picture.
  copy_file(person, dir + "/dog.txt");
  auto lab = run_command(bin() + " detect" + det_args() + "--save-labels " + q(dog));
  CHECK(lab.exit_code == 2);
  CHECK(slurp(dir + "/dog.txt") == photo);
  // --draw and --crops: a picture already under the name they would write.
  ::mkdir((dir + "/drawn").c_str(), 0755);
  copy_file(person, dir + "/drawn/dog.jpg");
  auto draw = run_command(bin() + " detect" + det_args() + "--draw " + q(dir + "/drawn") + " " + q(dog));
  INFO(draw.err);
  CHECK(draw.exit_code == 2);
  CHECK(draw.err.find("--draw " + dir + "/drawn/dog.jpg is an existing JPEG picture") != std::string::npos);
  CHECK(slurp(dir + "/drawn/dog.jpg") == photo);
  auto crops = run_command(bin() + " detect" + det_args() + "--thresh 0 --top 1 --crops " + q(dir + "/crops") + " " +
                           q(dog) + " && ls " + q(dir + "/crops"));
  INFO(crops.err);
  REQUIRE(crops.exit_code == 0);
  const std::string crop = dir + "/crops/" + lines_of(crops.out).back();
  copy_file(person, crop);
  auto again = run_command(bin() + " detect" + det_args() + "--thresh 0 --top 1 --crops " + q(dir + "/crops") + " " +
                           q(dog));
  CHECK(again.exit_code == 2);
  CHECK(slurp(crop) == photo);
  // gen-weights and merge too.
  auto g = run_command(bin() + " gen-weights -c " + q(source_path("test/data/cli/tiny-detector.cfg")) + " -o " + q(person));
  CHECK(g.exit_code == 2);
  write_file(dir + "/r.jsonl", "{\"image\":\"a.jpg\"}\n");
  auto mg = run_command(bin() + " merge " + q(dir + "/r.jsonl") + " -o " + q(person));
  CHECK(mg.exit_code == 2);
  CHECK(slurp(person) == photo);
  // --force replaces a picture (never an input).
  auto forced = run_command(run + "--force -o " + q(person));
  INFO(forced.err);
  CHECK(forced.exit_code == 0);
  CHECK(slurp(person).rfind(dog + ":", 0) == 0);
  auto in = run_command(run + "--force -o " + q(dog));
  CHECK(in.exit_code == 2);
  CHECK(in.err.find("is one of this run's input files") != std::string::npos);
  auto fdraw = run_command(bin() + " detect -q" + det_args() + "--force --draw " + q(dir + "/drawn") + " " + q(dog));
  CHECK(fdraw.exit_code == 0);
  CHECK(slurp(dir + "/drawn/dog.jpg") != photo);
  // A text output of an earlier run is not a picture: replaced without --force.
  auto text = run_command(run + "-o " + q(person));
  CHECK(text.exit_code == 0);
}

TEST_CASE("cli #41.4: --resume keys on canonical paths; a stream file resumes at its next frame", "[cli]") {
  const std::string dir = tmp_dir("cli_resume_keys");
  make_corpus(dir);
  const std::string cmd = "cd " + q(dir) + " && " + bin() + " detect" + det_args();
  for (const char* fmt : {"jsonl", "csv", "text"}) {
    INFO(fmt);
    const std::string out = std::string("out.") + fmt;
    auto first = run_command(cmd + "-q --format " + fmt + " -o " + out + " batch/");
    CHECK(first.exit_code == 3);
    const std::string before = slurp(dir + "/" + out);
    for (const std::string& again : std::vector<std::string>{"./batch/", dir + "/batch", "batch/../batch", "batch/dog.jpg ./batch/kite.jpg"}) {
      auto r = run_command(cmd + "--format " + fmt + " -o " + out + " --resume " + again);
      INFO(again << "\n" << r.err);
      CHECK(r.exit_code == 0);
      CHECK(std::regex_search(r.err, std::regex("--resume: ([0-9]+) of \\1 inputs already in")));
      CHECK(slurp(dir + "/" + out) == before);
    }
  }
  // A stream read from a file: its recorded frames are skipped, the rest appended.
  write_file(dir + "/cam.mjpg", slurp(std::string(kData) + "dog.jpg") + slurp(std::string(kData) + "eagle.jpg") +
                                    slurp(std::string(kData) + "kite.jpg") + slurp(std::string(kData) + "person.jpg"));
  auto all = run_command(cmd + "-q --format jsonl -o whole.jsonl --stream cam.mjpg");
  REQUIRE(all.exit_code == 0);
  const auto whole = lines_of(slurp(dir + "/whole.jsonl"));
  REQUIRE(whole.size() == 4);
  write_file(dir + "/part.jsonl", whole[0] + "\n" + whole[1] + "\n");
  auto r = run_command(cmd + "--format jsonl -o part.jsonl --resume --stream ./cam.mjpg");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("2 frames of ./cam.mjpg were already in part.jsonl") != std::string::npos);
  const auto resumed = lines_of(slurp(dir + "/part.jsonl"));
  REQUIRE(resumed.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    auto a = nlohmann::json::parse(resumed[i]), b = nlohmann::json::parse(whole[i]);
    CHECK(a["frame"] == b["frame"]);
    CHECK(a["detections"] == b["detections"]);
  }
  // A pipe cannot be read again: --resume is refused, and an interrupted run does not suggest it.
  auto pipe = run_command("cat " + q(dir + "/cam.mjpg") + " | " + bin() + " detect" + det_args() +
                          "--format jsonl -o " + q(dir + "/p.jsonl") + " --resume --stream -");
  CHECK(pipe.exit_code == 2);
  CHECK(pipe.err.find("cannot be read again") != std::string::npos);
  // (The read in progress restarts after the signal; the producer's end lets the run stop.)
  ::unlink((dir + "/p.jsonl").c_str());
  const std::string fifo = dir + "/cam.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  auto stopped = run_command("(cat " + q(dir + "/cam.mjpg") + "; sleep 3) > " + q(fifo) + " & " + bin() + " detect" +
                             det_args() + "--format jsonl -o " + q(dir + "/p.jsonl") + " --stream " + q(fifo) +
                             " & p=$!; t=0; "
                             // Signalled once a record is in the file: mdfi itself is running
                             // then, its handler in place (a check of /proc/PID/status alone
                             // can see the shell's child before it has become mdfi).
                             "until [ \"$(cat " + q(dir + "/p.jsonl") + " 2>/dev/null | wc -l)\" -ge 1 ] "
                             "|| [ $t -ge 1500 ]; do sleep 0.02; t=$((t+1)); done; kill -INT $p; wait $p");
  INFO(stopped.err);
  CHECK(stopped.exit_code == 130);
  CHECK(stopped.err.find("is a pipe whose frames cannot be read again") != std::string::npos);
  CHECK(stopped.err.find("rerun with --resume") == std::string::npos);
}
