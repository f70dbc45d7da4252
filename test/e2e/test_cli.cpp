// End-to-end tests of the mdfi command line, run as a user would run it: the real binary over a
// batch of real images mixed with broken inputs (a truncated JPEG, a zero-byte file, a text file
// named .jpg, a missing path), in every result format, checked with real parsers (python3's json
// and csv modules, nlohmann::json), plus exit codes, stdout purity and --draw pictures.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "image.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

const char* kDog = "/usr/share/darknet/data/dog.jpg";
const char* kEagle = "/usr/share/darknet/data/eagle.jpg";
// Quotes, a backslash and non-ASCII letters: what hand-built JSON gets wrong.
const char* kWeirdDir = "we\"ird\\dir";
const char* kWeirdName = "\xC3\xA9" "agle \"\xC3\xBC\".jpg";  // éagle "ü".jpg

std::string quote(const std::string& s) { return "'" + s + "'"; }  // test paths hold no single quote


void copy_file(const std::string& from, const std::string& to, size_t max_bytes = size_t(-1)) {
  std::ifstream in(from, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!data.empty());
  if (data.size() > max_bytes) data.resize(max_bytes);
  std::ofstream(to, std::ios::binary) << data;
}



// The model these tests run: Yolo-Fastest 1.1 (1.4 MB, real COCO weights) from ../shared.
std::string model_args() {
  const std::string d = shared_path("models/yolo-fastest-1.1-coco");
  if (d.empty()) return "";
  return "--cfg " + quote(d + "/yolo-fastest-1.1.cfg") + " --weights " + quote(d + "/yolo-fastest-1.1.weights") +
         " --names " + quote(d + "/coco.names");
}

struct Batch {
  std::string dir;
  std::vector<std::string> inputs;  // in the order given
  std::vector<bool> good;
  std::string weird;                // the path with quotes, backslash and non-ASCII
  std::string args() const {
    std::string s;
    for (const auto& p : inputs) s += " " + quote(p);
    return s;
  }
};

// Two real images, the four kinds of broken input, and a good image under an awkward name.
Batch make_batch(const std::string& name) {
  Batch b;
  b.dir = tmp_dir(name);
  copy_file(kDog, b.dir + "/dog.jpg");
  copy_file(kDog, b.dir + "/truncated.jpg", 20000);  // cut mid-scan: stb_image must refuse it
  write_file(b.dir + "/empty.jpg", "");
  write_file(b.dir + "/notes.jpg", "this is a text file, not a JPEG\n");
  REQUIRE(::mkdir((b.dir + "/" + kWeirdDir).c_str(), 0755) == 0);
  b.weird = b.dir + "/" + kWeirdDir + "/" + kWeirdName;
  copy_file(kEagle, b.weird);
  b.inputs = {b.dir + "/dog.jpg", b.dir + "/truncated.jpg", b.dir + "/empty.jpg", b.dir + "/notes.jpg",
              b.dir + "/missing.jpg", b.weird};
  b.good = {true, false, false, false, false, true};
  return b;
}

// Runs a python3 snippet with the file as argv[1]; returns its exit code (output in INFO).
int python_check(const std::string& file, const std::string& code) {
  const std::string script = file + ".check.py";
  write_file(script, code);
  auto r = run_command("python3 " + quote(script) + " " + quote(file));
  INFO("python: " << r.out << r.err);
  CHECK(r.exit_code == 0);
  return r.exit_code;
}

std::string bin() { return mdfi_binary(); }

}  // namespace

TEST_CASE("cli: --version and --help describe the build and the exit codes", "[cli]") {
  auto v = run_command(bin() + " --version");
  INFO(v.out << v.err);
  REQUIRE(v.exit_code == 0);
  for (const char* k : {"mdfi ", "target: ", "SIMD: ", "OpenCL: ", "compiler: "}) CHECK(v.out.find(k) != std::string::npos);

  auto h = run_command(bin() + " --help");
  REQUIRE(h.exit_code == 0);
  CHECK(h.out.find("Exit codes") != std::string::npos);
  CHECK(h.out.find("MDFI_WEIGHTS_DIR") != std::string::npos);

  auto d = run_command(bin() + " detect --help");
  REQUIRE(d.exit_code == 0);
  for (const char* k : {"--format", "--list", "--draw", "--fail-fast", "--thresh", "--hier", "--nms", "--top", "--width",
                        "--height", "-o"})
    CHECK(d.out.find(k) != std::string::npos);
  CHECK(d.out.find("0.25") != std::string::npos);  // the default threshold is shown
}

TEST_CASE("cli: usage errors exit 2 with nothing on stdout", "[cli]") {
  const char* bad[] = {
      " frobnicate",                                  // unknown command
      "",                                             // no command
      " detect --format xml /nonexistent.jpg",        // bad value
      " detect --thresh 2 /nonexistent.jpg",          // out of range
      " detect --no-such-option /nonexistent.jpg",    // unknown option
      " detect --net yolov3",                         // no inputs at all
      " detect --net no-such-net /nonexistent.jpg",   // unknown named network
  };
  for (const char* args : bad) {
    auto r = run_command(bin() + args);
    INFO("mdfi" << args << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(!r.err.empty());
  }
}

TEST_CASE("cli: missing weights for a named network exit 1 and say where to get them", "[cli]") {
  const std::string empty = tmp_dir("cli_noweights");
  auto r = run_command("env -u MDFI_WEIGHTS MDFI_WEIGHTS_DIR=" + quote(empty) + " " + bin() +
                       " detect --net yolov3-tiny " + kDog);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find(empty) != std::string::npos);
  CHECK(r.err.find("get-weights.sh yolov3-tiny") != std::string::npos);
}

TEST_CASE("cli: mdfi models lists every named network with cost, plan and checksum", "[cli]") {
  const std::string empty = tmp_dir("cli_models");
  auto r = run_command("env -u MDFI_WEIGHTS MDFI_WEIGHTS_DIR=" + quote(empty) + " " + bin() + " models --porcelain");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    INFO(line);
    REQUIRE(f.size() >= 8);
    CHECK(std::regex_match(f[2], std::regex("[0-9]+x[0-9]+x[0-9]+")));
    CHECK(std::stod(f[3]) > 0);           // GFLOP
    CHECK(std::stoull(f[4]) > 1000000);   // planned peak bytes
    CHECK((f[7] == "unknown" || std::regex_match(f[7], std::regex("[0-9a-f]{64}"))));
    CHECK((f.size() == 8 || f[8].empty()));  // nothing found in an empty weights dir
    ++n;
  }
  CHECK(n >= 7);
  // The download script knows the same files and checksums.
  auto g = run_command(source_path("scripts/get-weights.sh") + " --list");
  INFO(g.err);
  REQUIRE(g.exit_code == 0);
  std::istringstream in(r.out);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    const std::string expect = f[0] + "\t" + f[5] + "\t" + f[6] + "\t" + f[7];
    CHECK(g.out.find(expect + "\t") != std::string::npos);  // then the parameter count
  }
}

TEST_CASE("cli: a batch with broken inputs goes on, in every format", "[cli]") {
  const std::string model = model_args();
  if (model.empty()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Batch b = make_batch("cli_batch");
  const size_t n_good = 2, n_bad = b.inputs.size() - n_good;

  SECTION("text: Darknet-like lines, each error once (stderr), recorded in an -o file, exit 3") {
    auto r = run_command(bin() + " detect " + model + b.args());
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK(r.out.find(b.dir + "/dog.jpg:\n") != std::string::npos);
    CHECK(std::regex_search(r.out, std::regex("\ndog: [0-9]+%\t\\(left: [0-9]+ top: [0-9]+ width: [0-9]+ height: [0-9]+\\)")));
    CHECK(std::regex_search(r.out, std::regex("\nbird: [0-9]+%")));
    // Each failed input once, on stderr; stdout holds results only.
    for (size_t i = 0; i < b.inputs.size(); ++i)
      if (!b.good[i]) {
        INFO(b.inputs[i]);
        CHECK(r.out.find(b.inputs[i] + ": error: ") == std::string::npos);
        const size_t at = r.err.find("mdfi: error: " + b.inputs[i]);
        CHECK(at != std::string::npos);
        CHECK(r.err.find("mdfi: error: " + b.inputs[i], at + 1) == std::string::npos);
      }
    // In an -o file the failed inputs are records (what --resume reads), and stderr says it once.
    const std::string file = b.dir + "/out.txt";
    ::unlink(file.c_str());
    auto o = run_command(bin() + " detect -o " + quote(file) + " " + model + b.args());
    CHECK(o.exit_code == 3);
    const std::string text = slurp(file);
    for (size_t i = 0; i < b.inputs.size(); ++i)
      if (!b.good[i]) CHECK(text.find(b.inputs[i] + ": error: ") != std::string::npos);
    // The summary and the errors are on stderr.
    CHECK(r.out.find("mdfi:") == std::string::npos);
    CHECK(r.err.find("6 images: 2 ok, 4 failed") != std::string::npos);
    CHECK(r.err.find("peak heap") != std::string::npos);
    CHECK(r.err.find("peak RSS") != std::string::npos);
  }

  SECTION("json: one valid document, every input once, awkward path intact") {
    const std::string out = b.dir + "/out.json";
    auto r = run_command(bin() + " detect -q --format json " + model + b.args() + " > " + quote(out));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK(run_command("python3 -m json.tool " + quote(out) + " > /dev/null").exit_code == 0);
    python_check(out, "import json,sys\n"
                      "d=json.load(open(sys.argv[1],encoding='utf-8'))\n"
                      "assert isinstance(d,list) and len(d)==6, d\n"
                      "assert sum('error' in x for x in d)==4\n"
                      "w=[x for x in d if 'agle' in x['image']][0]\n"
                      "assert w['image'].endswith('we\"ird\\\\dir/\\u00e9agle \"\\u00fc\".jpg'), w['image']\n"
                      "assert w['width']==773 and w['height']==512 and w['time_ms']>0\n"
                      "det=w['detections'][0]\n"
                      "assert det['name']=='bird' and det['class_id']==14 and det['confidence']>0.5\n"
                      "assert set(det['box'])=={'x','y','w','h'} and set(det['relative'])=={'cx','cy','w','h'}\n");
    auto j = nlohmann::json::parse(slurp(out));
    REQUIRE(j.size() == b.inputs.size());
    for (size_t i = 0; i < b.inputs.size(); ++i) {
      CHECK(j[i]["image"] == b.inputs[i]);
      CHECK(j[i].contains("error") == !b.good[i]);
      if (!b.good[i]) continue;
      const int iw = j[i]["width"].get<int>(), ih = j[i]["height"].get<int>();
      for (const auto& d : j[i]["detections"]) {  // pixel boxes lie inside the image
        const int x = d["box"]["x"].get<int>(), y = d["box"]["y"].get<int>();
        const int w = d["box"]["w"].get<int>(), h = d["box"]["h"].get<int>();
        CHECK((x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= iw - 1 && y + h <= ih - 1));
      }
    }
  }

  SECTION("jsonl from --list on stdin: one valid object per line per image") {
    const std::string list = b.dir + "/list.txt", out = b.dir + "/out.jsonl";
    std::string text;
    for (const auto& p : b.inputs) text += p + "\n";
    write_file(list, text);
    auto r = run_command("cat " + quote(list) + " | " + bin() + " detect -q --format jsonl --list - " + model + " > " +
                         quote(out));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    python_check(out, "import json,sys\n"
                      "lines=open(sys.argv[1],encoding='utf-8').read().splitlines()\n"
                      "assert len(lines)==6, lines\n"
                      "recs=[json.loads(l) for l in lines]\n"
                      "assert sum('error' in x for x in recs)==4\n"
                      "assert all('detections' in x for x in recs if 'error' not in x)\n");
  }

  SECTION("csv: RFC 4180 rows of equal width, every input present") {
    const std::string out = b.dir + "/out.csv";
    auto r = run_command(bin() + " detect -q --format csv -o " + quote(out) + " " + model + b.args());
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK(r.out.empty());  // -o: nothing on stdout
    python_check(out, "import csv,sys\n"
                      "rows=list(csv.reader(open(sys.argv[1],encoding='utf-8',newline='')))\n"
                      "h=rows[0]\n"
                      "assert h[0]=='image' and h[-1]=='error', h\n"
                      "assert all(len(r)==len(h) for r in rows), [len(r) for r in rows]\n"
                      "imgs={r[0] for r in rows[1:]}\n"
                      "assert len(imgs)==6, imgs\n"
                      "assert sum(1 for r in rows[1:] if r[-1])==4\n"
                      "assert any(r[5]=='bird' for r in rows[1:])\n");
  }

  SECTION("--fail-fast stops at the first bad image") {
    auto r = run_command(bin() + " detect -q --fail-fast --format jsonl " + model + b.args());
    INFO(r.err);
    CHECK(r.exit_code == 3);
    std::istringstream lines(r.out);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) ++n;
    CHECK(n == 2);  // dog.jpg, then truncated.jpg, then stop
  }
  (void)n_bad;
}

TEST_CASE("cli: exit codes 0, 1, 3 and 4 for single images, directories, budgets, -o atomicity", "[cli]") {
  const std::string model = model_args();
  if (model.empty()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string dir = tmp_dir("cli_exit");
  copy_file(kEagle, dir + "/eagle.jpg");
  copy_file(kDog, dir + "/dog.jpg");
  write_file(dir + "/readme.txt", "not an image; a directory scan skips it\n");

  auto ok = run_command(bin() + " detect -q --format jsonl " + model + " " + quote(dir));
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  // Directory inputs expand to the images inside, sorted.
  CHECK(ok.out.find("dog.jpg") < ok.out.find("eagle.jpg"));
  CHECK(ok.out.find("readme") == std::string::npos);

  // An empty folder or list is an empty batch: well-formed output, exit 0.
  const std::string none = tmp_dir("cli_exit_empty");
  auto empty = run_command("printf '' | " + bin() + " detect -q --format json --list - " + model + " " + quote(none));
  INFO(empty.err);
  CHECK(empty.exit_code == 0);
  CHECK(nlohmann::json::parse(empty.out).empty());

  write_file(dir + "/bad.jpg", "");
  auto one_bad = run_command(bin() + " detect -q " + model + " " + quote(dir + "/bad.jpg"));
  CHECK(one_bad.exit_code == 3);

  // Over the memory budget: 4, and no -o file.
  auto budget = run_command(bin() + " detect -q --max-mem 10K --format json -o " + quote(dir + "/budget.json") + " " +
                            model + " " + quote(dir + "/eagle.jpg"));
  CHECK(budget.exit_code == 4);
  CHECK(budget.out.empty());
  CHECK(!exists(dir + "/budget.json"));

  // An output file that cannot be written fails the run as a whole, before any work.
  auto no_dir = run_command(bin() + " detect -q -o " + quote(dir + "/no/such/dir/out.json") + " " + model + " " +
                            quote(dir + "/eagle.jpg"));
  CHECK(no_dir.exit_code == 1);
  CHECK(no_dir.out.empty());

  // A run that fails as a whole leaves no partial -o file behind.
  const std::string out = dir + "/results.json";
  auto fail = run_command(bin() + " detect -q -o " + quote(out) + " --cfg " + quote(darknet_cfg("yolov3-tiny.cfg")) +
                          " --weights " + quote(dir + "/eagle.jpg") + " " + quote(dir + "/eagle.jpg"));
  CHECK(fail.exit_code == 1);
  CHECK(!exists(out));
  auto good = run_command(bin() + " detect -q --format json -o " + quote(out) + " " + model + " " +
                          quote(dir + "/eagle.jpg"));
  CHECK(good.exit_code == 0);
  CHECK(nlohmann::json::parse(slurp(out)).size() == 1);
}

TEST_CASE("cli: --draw writes boxes where the detections are, never over the input", "[cli]") {
  const std::string model = model_args();
  if (model.empty()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string dir = tmp_dir("cli_draw");
  // A lossless input and a lossless output make the pixel checks exact.
  const std::string input = dir + "/eagle.png";
  copy_file(shared_path("models/images/eagle.png"), input);
  const std::string before = slurp(input);
  // Drawing into the input's own folder with the same name must not overwrite it.
  auto r = run_command(bin() + " detect -q --format json --draw " + quote(dir) + " --draw-ext png " + model + " " +
                       quote(input));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(input) == before);
  const std::string drawn = dir + "/eagle_1.png";
  REQUIRE(exists(drawn));

  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 1);
  REQUIRE(j[0]["detections"].size() >= 1);
  MemoryTracker mem;
  auto orig = load_image_rgb(input, mem);
  auto pic = load_image_rgb(drawn, mem);
  REQUIRE(orig.ok());
  REQUIRE(pic.ok());
  REQUIRE(pic->w == orig->w);
  REQUIRE(pic->h == orig->h);
  auto px = [](const Image& im, int x, int y) {
    return std::array<float, 3>{im.at(x, y, 0), im.at(x, y, 1), im.at(x, y, 2)};
  };
  const auto& d = j[0]["detections"][0];
  const int l = d["box"]["x"].get<int>(), t = d["box"]["y"].get<int>();
  const int w = d["box"]["w"].get<int>(), h = d["box"]["h"].get<int>();
  INFO("box " << l << "," << t << " " << w << "x" << h);
  // Left, right and bottom edges carry the same class colour, which was not there before.
  const auto left = px(*pic, l, t + h / 2), right = px(*pic, l + w, t + h / 2), bottom = px(*pic, l + w / 2, t + h);
  CHECK(left == right);
  CHECK(left == bottom);
  CHECK(left != px(*orig, l, t + h / 2));
  // Inside the box and far outside it the picture is untouched.
  CHECK(px(*pic, l + w / 2, t + h / 2) == px(*orig, l + w / 2, t + h / 2));
  const int fx = l > 20 ? 5 : orig->w - 5, fy = orig->h - 5;
  CHECK(px(*pic, fx, fy) == px(*orig, fx, fy));
  // The label sits on the top edge: some pixels just above the box changed.
  bool label = false;
  for (int x = l; x < l + w && !label; ++x)
    if (t > 3 && px(*pic, x, t - 3) != px(*orig, x, t - 3)) label = true;
  CHECK(label);
}

TEST_CASE("cli: classify batches give ranked classes in every format", "[cli]") {
  const std::string d = shared_path("models/cifar-small");
  if (d.empty()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string model = "--cfg " + quote(d + "/cifar_small.cfg") + " --weights " + quote(d + "/cifar_small.weights") +
                            " --names " + quote(d + "/labels.txt");
  const std::string dir = tmp_dir("cli_classify");
  write_file(dir + "/empty.jpg", "");
  const std::string inputs = std::string(" ") + kDog + " " + quote(dir + "/empty.jpg");

  auto text = run_command(bin() + " classify -q --top 3 " + model + inputs);
  INFO(text.err);
  CHECK(text.exit_code == 3);
  CHECK(std::regex_search(text.out, std::regex(std::string(kDog) + ":\n( ?[0-9]+\\.[0-9]{2}%: [a-z]+\n){3}")));

  auto js = run_command(bin() + " classify -q --top 3 --format json --draw " + quote(dir) + " " + model + inputs);
  CHECK(js.exit_code == 3);
  auto j = nlohmann::json::parse(js.out);
  REQUIRE(j.size() == 2);
  REQUIRE(j[0]["classes"].size() == 3);
  for (int k = 0; k < 3; ++k) CHECK(j[0]["classes"][k]["rank"] == k + 1);
  CHECK(j[0]["classes"][0]["probability"] >= j[0]["classes"][1]["probability"]);
  CHECK(j[1].contains("error"));
  MemoryTracker mem;
  auto pic = load_image_rgb(dir + "/dog.jpg", mem);  // the drawn picture decodes
  CHECK(pic.ok());

  const std::string csv = dir + "/out.csv";
  auto c = run_command(bin() + " classify -q --top 2 --format csv -o " + quote(csv) + " " + model + inputs);
  CHECK(c.exit_code == 3);
  python_check(csv, "import csv,sys\n"
                    "rows=list(csv.reader(open(sys.argv[1],newline='')))\n"
                    "assert rows[0]==['image','width','height','time_ms','rank','class_id','name','probability','error']\n"
                    "assert all(len(r)==9 for r in rows)\n"
                    "assert [r[4] for r in rows[1:3]]==['1','2'] and rows[3][-1]\n");
}

TEST_CASE("cli: the bash completion offers every command, option and value of --help", "[cli]") {
  const std::string script = source_path("scripts/mdfi-completion.bash");
  REQUIRE(run_command("bash -n " + quote(script)).exit_code == 0);
  // Runs the completion function as bash would for the words typed so far.
  const std::string sh = tmp_dir("cli_completion") + "/complete.sh";
  auto complete = [&](const std::string& words) {
    write_file(sh, "source " + quote(script) + "\nCOMP_WORDS=(" + quote(bin()) + " " + words +
                       ")\nCOMP_CWORD=$((${#COMP_WORDS[@]}-1))\n_mdfi\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n");
    auto r = run_command("bash " + quote(sh));
    return "\n" + r.out;
  };
  const std::regex opt("(^|[ ,])(--?[a-z][a-z0-9-]*)");
  auto top = run_command(bin() + " --help");
  REQUIRE(top.exit_code == 0);
  std::vector<std::string> cmds;
  {
    std::istringstream lines(top.out.substr(top.out.find("Subcommands:")));
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line) && line.size() > 2 && line[0] == ' ') {
      if (line[2] == ' ') continue;  // a wrapped description goes on under its command
      cmds.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  CHECK(cmds.size() >= 6);
  const std::string first = complete("''");
  for (const std::string& cmd : cmds) {
    CHECK(first.find("\n" + cmd + "\n") != std::string::npos);
    auto h = run_command(bin() + " " + cmd + " --help");
    REQUIRE(h.exit_code == 0);
    const std::string offered = complete(cmd + " -");
    std::istringstream lines(h.out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.size() < 3 || line[2] != '-') continue;
      const std::string head = line.substr(0, line.find("  ", 2));
      for (auto it = std::sregex_iterator(head.begin(), head.end(), opt); it != std::sregex_iterator(); ++it) {
        const std::string o = (*it)[2];
        INFO(cmd << " " << o);
        CHECK(offered.find("\n" + o + "\n") != std::string::npos);
      }
    }
  }
  CHECK(complete("detect --format ''") == "\ntext\njson\njsonl\ncsv\ndarknet-json\n");
  CHECK(complete("classify --format ''") == "\ntext\njson\njsonl\ncsv\n");
  CHECK(complete("detect --net yolov3-t").find("\nyolov3-tiny\n") != std::string::npos);
}

TEST_CASE("cli: named networks resolve weights from MDFI_WEIGHTS_DIR; boxes stay inside the image", "[cli]") {
  // Random weights for yolov3-tiny under the official file name: the named-network path end to
  // end (cfg from cfg/, labels from data/, weights from the directory). Random weights also
  // produce boxes far outside the picture, which must still come out clipped.
  const std::string wdir = tmp_dir("cli_named");
  auto gen = run_command(bin() + " -q gen-weights --net yolov3-tiny -o " + quote(wdir + "/yolov3-tiny.weights"));
  REQUIRE(gen.exit_code == 0);
  const std::string env = "env -u MDFI_WEIGHTS MDFI_WEIGHTS_DIR=" + quote(wdir) + " ";
  auto models = run_command(env + bin() + " models --porcelain");
  CHECK(models.out.find("\t" + wdir + "/yolov3-tiny.weights\t") != std::string::npos);  // then the parameter count
  auto r = run_command("echo " + std::string(kEagle) + " | " + env + bin() +
                       " detect -q --net yolov3-tiny --list - --format jsonl --thresh 0.2 --top 500");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["image"] == kEagle);
  CHECK(!j["detections"].empty());
  CHECK(j["detections"].size() <= 500);  // --top
  std::string outside;
  for (const auto& d : j["detections"]) {
    const int x = d["box"]["x"].get<int>(), y = d["box"]["y"].get<int>();
    const int w = d["box"]["w"].get<int>(), h = d["box"]["h"].get<int>();
    if (!(x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= 772 && y + h <= 511)) outside += d.dump() + "\n";
  }
  CHECK(outside.empty());
}

namespace {

// Display columns of UTF-8 text: its code points, not its bytes.
size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The lines of `text` wider than `width` columns, each with its width ("" when none).
std::string too_wide(const std::string& text, size_t width) {
  std::istringstream lines(text);
  std::string line, bad;
  while (std::getline(lines, line))
    if (columns(line) > width) bad += "[" + std::to_string(columns(line)) + "] " + line + "\n";
  return bad;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : p;
}

}  // namespace

TEST_CASE("cli: mdfi --help and every command's --help fit an 80-column terminal", "[cli]") {
  // COLUMNS narrows the help below 80 (never widens it): unset, the help is 80 columns wide.
  const std::string env = "env -u COLUMNS ";
  auto top = run_command(env + bin() + " --help");
  REQUIRE(top.exit_code == 0);
  INFO("mdfi --help");
  CHECK(too_wide(top.out, 80) == "");
  std::vector<std::string> cmds;
  {
    std::istringstream lines(top.out.substr(top.out.find("Subcommands:")));
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line) && line.size() > 2 && line[0] == ' ') {
      if (line[2] == ' ') continue;  // a wrapped description
      cmds.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  for (const char* want : {"detect", "classify", "models", "info", "plan", "gen-weights", "devices", "bench", "merge"})
    CHECK(std::find(cmds.begin(), cmds.end(), want) != cmds.end());
  for (const std::string& cmd : cmds) {
    auto h = run_command(env + bin() + " " + cmd + " --help");
    INFO("mdfi " << cmd << " --help");
    REQUIRE(h.exit_code == 0);
    CHECK(h.out.find("Usage:") != std::string::npos);
    CHECK(too_wide(h.out, 80) == "");
    // A narrower terminal gets narrower help; the option names are never cut.
    auto narrow = run_command("COLUMNS=60 " + bin() + " " + cmd + " --help");
    REQUIRE(narrow.exit_code == 0);
    CHECK(too_wide(narrow.out, 60) == "");
  }
  // Wrapping keeps every word: the detect help holds the same words at 80 and 60 columns.
  auto words = [](const std::string& text) {
    std::istringstream in(text);
    std::string w, all;
    while (in >> w) all += w + " ";
    return all;
  };
  auto d80 = run_command(env + bin() + " detect --help");
  auto d60 = run_command("COLUMNS=60 " + bin() + " detect --help");
  CHECK(words(d80.out) == words(d60.out));
  CHECK(d80.out.find("--winograd TEXT:{off,auto,f2,f4}=auto") != std::string::npos);

  // The man page is made from this help: cmake/make_manpage.cmake run here on this binary, then
  // rendered by man as on an 80-column terminal (where cmake and man are installed).
  if (run_command("command -v cmake && command -v man").exit_code == 0) {
    const std::string page = tmp_dir("cli_help_width") + "/mdfi.1";
    auto gen = run_command("cmake -DMDFI=" + quote(bin()) + " -DOUT=" + quote(page) + " -DVERSION=0 -P " +
                           quote(source_path("cmake/make_manpage.cmake")));
    INFO(gen.out << gen.err);
    REQUIRE(gen.exit_code == 0);
    auto man = run_command("env -u MAN_KEEP_FORMATTING MANWIDTH=80 man -l " + quote(page));
    INFO("man -l " << page << "\n" << man.err);
    REQUIRE(man.exit_code == 0);
    CHECK(man.out.find("mdfi gen-weights") != std::string::npos);
    CHECK(too_wide(man.out, 80) == "");
  } else {
    WARN("the man page's width is not checked here: no cmake or no man");
  }
}

TEST_CASE("cli: --net finds its official weights in $MDFI_WEIGHTS, the working directory, beside the binary, "
          "then the weights directory",
          "[cli]") {
#ifdef MDFI_EMULATOR
  MDFI_SKIP(Need::kOther, "cross build: the copied binary would need the emulator");
#else
  const std::string weights = shared_path("models/yolo-fastest-1.1-coco/yolo-fastest-1.1.weights");
  if (weights.empty()) MDFI_SKIP(Need::kShared, "needs ../shared/models/yolo-fastest-1.1-coco");
  const std::string root = real_path(tmp_dir("cli_weights_places"));
  const std::string bindir = root + "/bin", wdir = root + "/w", other = root + "/other", home = root + "/home";
  const std::string file = "yolo-fastest-1.1.weights";
  REQUIRE(run_command("mkdir -p " + quote(bindir) + " " + quote(wdir) + " " + quote(other) + " " + quote(home) +
                      " && cp " + quote(bin()) + " " + quote(bindir + "/mdfi"))
              .exit_code == 0);
  // No weights setting of the caller's, and a HOME of its own (~/.local/share/mdfi/weights).
  const std::string env = "env -u MDFI_WEIGHTS -u MDFI_WEIGHTS_DIR -u MDFI_DATA_DIR HOME=" + quote(home) + " ";
  // extra: more NAME=VALUE settings for env.
  auto mdfi = [&](const std::string& extra = "") { return env + extra + quote(bindir + "/mdfi"); };
  auto in = [](const std::string& dir) { return "cd " + quote(dir) + " && "; };
  // The weights path `mdfi models --porcelain` reports for yolo-fastest-1.1 ("" when missing).
  auto listed = [&](const std::string& dir, const std::string& extra_env = "") {
    auto r = run_command(in(dir) + mdfi(extra_env) + " models --porcelain");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      std::string cell;
      while (std::getline(ss, cell, '\t')) f.push_back(cell);
      if (!f.empty() && f[0] == "yolo-fastest-1.1") return f.size() > 8 ? f[8] : std::string();
    }
    FAIL("yolo-fastest-1.1 not listed:\n" << r.out);
    return std::string();
  };
  auto detect = [&](const std::string& dir) {
    return run_command(in(dir) + mdfi() + " detect -q --net yolo-fastest-1.1 " + kDog);
  };

  // Beside the binary, run from another directory.
  REQUIRE(run_command("cp " + quote(weights) + " " + quote(bindir + "/" + file)).exit_code == 0);
  {
    auto r = detect(other);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("dog: ") != std::string::npos);
    CHECK(listed(other) == bindir + "/" + file);
    auto m = run_command(in(other) + mdfi() + " models");
    CHECK(m.out.find(bindir + "/" + file) != std::string::npos);  // the human table too
  }
  // In the working directory too: it comes first.
  REQUIRE(run_command("cp " + quote(weights) + " " + quote(wdir + "/" + file)).exit_code == 0);
  CHECK(listed(wdir) == wdir + "/" + file);
  CHECK(listed(other) == bindir + "/" + file);
  // $MDFI_WEIGHTS (a file) comes before both.
  CHECK(listed(wdir, "MDFI_WEIGHTS=" + quote(weights) + " ") == weights);
  // Only in the working directory, the binary elsewhere.
  REQUIRE(::unlink((bindir + "/" + file).c_str()) == 0);
  {
    auto r = detect(wdir);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("dog: ") != std::string::npos);
    CHECK(listed(wdir) == wdir + "/" + file);
    CHECK(listed(other) == "");
  }
  // Last, ~/.local/share/mdfi/weights (of the temporary HOME).
  const std::string homew = home + "/.local/share/mdfi/weights";
  REQUIRE(run_command("mkdir -p " + quote(homew) + " && cp " + quote(weights) + " " + quote(homew)).exit_code == 0);
  CHECK(listed(other) == homew + "/" + file);
  CHECK(listed(wdir) == wdir + "/" + file);
  REQUIRE(::unlink((homew + "/" + file).c_str()) == 0);

  // Nowhere: one error line naming every place looked at, in order.
  auto r = detect(other);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  const size_t a = r.err.find(other + "/" + file), b = r.err.find(bindir + "/" + file), c = r.err.find(homew + "/" + file);
  CHECK(a != std::string::npos);
  CHECK(b != std::string::npos);
  CHECK(c != std::string::npos);
  CHECK((a < b && b < c));
  // A $MDFI_WEIGHTS that is no file is named too, before the others.
  auto e = run_command(in(other) + mdfi("MDFI_WEIGHTS=" + quote(root + "/nope.weights") + " ") +
                       " detect -q --net yolo-fastest-1.1 " + kDog);
  INFO(e.err);
  CHECK(e.exit_code == 1);
  CHECK(e.err.find(root + "/nope.weights") < e.err.find(other + "/" + file));
#endif
}
