// Camera-sized images and streams (issue 14) through the real binary: 12 and 48 megapixel
// JPEGs and PNGs made here from dog.png (never committed), MJPEG frames through a pipe, and a
// slow `--list -` producer. Real weights: Yolo-Fastest-1.1(-XL) from ../shared/models.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <algorithm>
#include <regex>
#include <thread>

#include "image.h"
#include "support.h"

#include <stb_image_write.h>  // compiled once in test/stb_write.cpp

using namespace mdfi;
using namespace mdfi::test;
using json = nlohmann::json;

namespace {

struct Model {
  std::string cfg, weights, names;
  std::string args() const { return "-c " + cfg + " -w " + weights + " --names " + names; }
};

Model yolo_fastest(bool xl) {
  const std::string dir = xl ? "models/yolo-fastest-1.1-xl-coco/" : "models/yolo-fastest-1.1-coco/";
  const std::string stem = xl ? "yolo-fastest-1.1-xl" : "yolo-fastest-1.1";
  return {shared_path(dir + stem + ".cfg"), shared_path(dir + stem + ".weights"), shared_path(dir + "coco.names")};
}

// dog.png scaled up to w x h (bilinear), interleaved RGB.
std::vector<uint8_t> upscaled_dog(int w, int h) {
  MemoryTracker mem;
  auto src = load_image_u8(shared_path("models/images/dog.png"), mem);
  REQUIRE(src.ok());
  std::vector<uint8_t> out(size_t(w) * h * 3);
  const auto* p = src->pixels();
  for (int y = 0; y < h; ++y) {
    const float sy = (y + .5f) * src->h / h - .5f;
    const int y0 = std::max(0, int(std::floor(sy))), y1 = std::min(src->h - 1, y0 + 1);
    const float fy = std::min(1.f, std::max(0.f, sy - y0));
    for (int x = 0; x < w; ++x) {
      const float sx = (x + .5f) * src->w / w - .5f;
      const int x0 = std::max(0, int(std::floor(sx))), x1 = std::min(src->w - 1, x0 + 1);
      const float fx = std::min(1.f, std::max(0.f, sx - x0));
      for (int k = 0; k < 3; ++k) {
        auto at = [&](int xx, int yy) { return float(p[(size_t(yy) * src->w + xx) * 3 + k]); };
        const float v = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x1, y0)) + fy * ((1 - fx) * at(x0, y1) + fx * at(x1, y1));
        out[(size_t(y) * w + x) * 3 + k] = uint8_t(std::lround(v));
      }
    }
  }
  return out;
}

std::string write_photo(const std::string& dir, const std::vector<uint8_t>& px, int w, int h, bool png) {
  const std::string path = dir + "/dog_" + std::to_string(w) + "x" + std::to_string(h) + (png ? ".png" : ".jpg");
  stbi_write_png_compression_level = 1;  // the encoder's speed, not the test's subject
  const int ok = png ? stbi_write_png(path.c_str(), w, h, 3, px.data(), w * 3) : stbi_write_jpg(path.c_str(), w, h, 3, px.data(), 90);
  REQUIRE(ok);
  return path;
}

size_t network_peak(const Model& m) {
  const CommandResult r = run_command("'" + mdfi_binary() + "' plan -c '" + m.cfg + "'");
  REQUIRE(r.exit_code == 0);
  const size_t at = r.out.find("bytes; the network");
  REQUIRE(at != std::string::npos);
  const size_t open = r.out.rfind('(', at);
  return size_t(std::stoull(r.out.substr(open + 1)));
}

json detections(const std::string& json_text) {
  const json j = json::parse(json_text);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 1);
  return j[0];
}

// JPEG decoders differ by a few grey levels: the same classes, confidence within 0.01 and the box
// within 2 pixels of the network input (scaled to the photo).
void require_close(const json& a, const json& b, double px_per_net_px) {
  REQUIRE(a["detections"].size() == b["detections"].size());
  for (size_t i = 0; i < a["detections"].size(); ++i) {
    const json& da = a["detections"][i];
    const json& db = b["detections"][i];
    CHECK(da["class_id"] == db["class_id"]);
    CHECK(std::fabs(da["confidence"].get<double>() - db["confidence"].get<double>()) <= 0.01);
    for (const char* k : {"x", "y", "w", "h"})
      CHECK(std::fabs(da["box"][k].get<double>() - db["box"][k].get<double>()) <= 2 * px_per_net_px + 1);
  }
}

// A child process with its stdin and stdout on pipes.
struct Child {
  pid_t pid = -1;
  int in = -1, out = -1;
  std::string buffered;

  explicit Child(const std::string& cmd) {
    int to[2], from[2];
    REQUIRE(::pipe(to) == 0);
    REQUIRE(::pipe(from) == 0);
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::dup2(to[0], 0);
      ::dup2(from[1], 1);
      ::close(to[1]);
      ::close(from[0]);
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(to[0]);
    ::close(from[1]);
    in = to[1];
    out = from[0];
    ::signal(SIGPIPE, SIG_IGN);
  }
  void write_all(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n) {
      const ssize_t w = ::write(in, p, n);
      if (w <= 0) return;  // the reader is gone: what it printed tells the test what happened
      p += w;
      n -= size_t(w);
    }
  }
  void close_input() {
    if (in >= 0) ::close(in);
    in = -1;
  }
  // The next line of stdout, or "" after timeout_ms without one.
  std::string read_line(int timeout_ms) {
    while (true) {
      const size_t nl = buffered.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffered.substr(0, nl);
        buffered.erase(0, nl + 1);
        return line;
      }
      pollfd p{out, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) return "";
      char buf[4096];
      const ssize_t n = ::read(out, buf, sizeof buf);
      if (n <= 0) return "";
      buffered.append(buf, size_t(n));
    }
  }
  int wait() {
    close_input();
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

void add_jpeg_bytes(void* ctx, void* data, int size) {
  auto* v = static_cast<std::vector<uint8_t>*>(ctx);
  v->insert(v->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
}

// 640x480 frames: dog.png shifted a little each frame, so frames differ.
std::vector<std::vector<uint8_t>> mjpeg_frames(int n) {
  const std::vector<uint8_t> base = upscaled_dog(640 + 64, 480);
  std::vector<std::vector<uint8_t>> frames(static_cast<size_t>(n));
  std::vector<uint8_t> px(size_t(640) * 480 * 3);
  for (int f = 0; f < n; ++f) {
    const int shift = f % 64;
    for (int y = 0; y < 480; ++y)
      std::memcpy(&px[size_t(y) * 640 * 3], &base[(size_t(y) * 704 + shift) * 3], 640 * 3);
    REQUIRE(stbi_write_jpg_to_func(add_jpeg_bytes, &frames[size_t(f)], 640, 480, 3, px.data(), 85));
  }
  return frames;
}

std::string summary_peak(const std::string& stderr_text) {
  const size_t at = stderr_text.find("peak heap ");
  REQUIRE(at != std::string::npos);
  return stderr_text.substr(at, stderr_text.find(' ', at + 10) - at);
}

}  // namespace

TEST_CASE("camera photos: 12 and 48 megapixels in the network's plan + 2 MB, as predicted", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(true);
  const size_t net_peak = network_peak(m);
  const std::string dir = tmp_dir("camera_photos");
  for (auto size : {std::pair<int, int>{4000, 3000}, std::pair<int, int>{8000, 6000}}) {
    const std::vector<uint8_t> px = upscaled_dog(size.first, size.second);
    for (bool png : {false, true}) {
      const std::string img = write_photo(dir, px, size.first, size.second, png);
      INFO(img);
      const std::string report = dir + "/report.json";
      const CommandResult r = run_command("'" + mdfi_binary() + "' detect -q -j2 -f json " + m.args() +
                                          " --mem-report='" + report + "' '" + img + "'");
      REQUIRE(r.exit_code == 0);
      std::ifstream f(report);
      const json rep = json::parse(f);
      const size_t peak = rep["peak_bytes"], predicted = rep["predicted_peak_bytes"];
      CHECK(peak <= net_peak + 2000000);
      CHECK(std::fabs(double(peak) - double(predicted)) <= 0.01 * double(predicted));
      // mdfi plan IMAGE predicts the same figure before a pixel is decoded.
      const CommandResult plan = run_command("'" + mdfi_binary() + "' plan -c '" + m.cfg + "' '" + img + "'");
      REQUIRE(plan.exit_code == 0);
      CHECK(plan.out.find("(" + std::to_string(predicted) + " bytes)") != std::string::npos);
      // The old path: stb_image decodes the whole photo, then Darknet's resize of it.
      const CommandResult old = run_command("'" + mdfi_binary() + "' detect -q -j2 -f json --decoder stb " + m.args() +
                                            " '" + img + "'");
      REQUIRE(old.exit_code == 0);
      if (png)  // libpng rows and stb's whole image are the same pixels: identical results
        CHECK(detections(r.out)["detections"] == detections(old.out)["detections"]);
      else
        require_close(detections(r.out), detections(old.out), double(size.first) / 320);
      // A budget under the prediction: the planner fits a smaller schedule beside the decoder
      // (weight blocks, bands; schedule.h), or, when none fits, the image is refused before
      // decoding with exit 4. Under --reference there are no smaller schedules: always refused.
      const CommandResult over = run_command("'" + mdfi_binary() + "' detect -q -j2 " + m.args() + " --max-mem " +
                                             std::to_string(predicted - 50000) + " '" + img + "'");
      INFO(over.err);
      CHECK((over.exit_code == 0 || (over.exit_code == 4 && over.err.find("refused before decoding") != std::string::npos)));
      const CommandResult plain = run_command("'" + mdfi_binary() + "' detect -q -j2 --reference " + m.args() +
                                              " --max-mem " + std::to_string(predicted - 50000) + " '" + img + "'");
      INFO(plain.err);
      CHECK(plain.exit_code == 4);
      ::unlink(img.c_str());
    }
  }
}

TEST_CASE("MJPEG stream through a pipe: a record per frame as it is done, bad frames recorded", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(false);
  const auto frames = mjpeg_frames(300);
  const std::string err_file = tmp_dir("camera_stream") + "/err.txt";
  const std::string cmd = "'" + mdfi_binary() + "' detect -j2 -f jsonl --stream - " + m.args() + " 2>" + err_file;
  Child c(cmd);
  c.write_all(frames[0].data(), frames[0].size());
  // The producer waits: the first record must come while the pipe is still open.
  const std::string first = c.read_line(60000);
  REQUIRE(!first.empty());
  const json j0 = json::parse(first);
  CHECK(j0["frame"] == 0);
  CHECK(j0["read_at"].get<double>() > 1.7e9);
  CHECK(j0.contains("detections"));
  // The rest from another thread, so the records are read while frames are still written
  // (a full stdout pipe would otherwise stop mdfi, and with it the writer).
  std::thread producer([&] {
    for (size_t i = 1; i < frames.size(); ++i) {
      if (i == 150) {  // a frame cut in the middle of its data, then the stream goes on
        c.write_all(frames[i].data(), frames[i].size() / 2);
        continue;
      }
      c.write_all(frames[i].data(), frames[i].size());
    }
    c.close_input();
  });
  std::vector<json> records{j0};
  for (std::string line; !(line = c.read_line(120000)).empty();) records.push_back(json::parse(line));
  producer.join();
  CHECK(c.wait() == 3);
  REQUIRE(records.size() == 300);
  for (size_t i = 0; i < records.size(); ++i) CHECK(records[i]["frame"] == long(i));
  CHECK(records[150].contains("error"));
  CHECK(records[149].contains("detections"));
  CHECK(records[151].contains("detections"));
  // The heap after 300 frames (a truncated one among them) is the heap after 10.
  const std::string dir = tmp_dir("camera_stream_peak");
  std::ofstream ten(dir + "/ten.mjpeg", std::ios::binary);
  for (size_t i = 0; i < 10; ++i) ten.write(reinterpret_cast<const char*>(frames[i].data()), std::streamsize(frames[i].size()));
  ten.close();
  const CommandResult r10 = run_command("cat " + dir + "/ten.mjpeg | '" + mdfi_binary() + "' detect -j2 -f jsonl --stream - " + m.args());
  REQUIRE(r10.exit_code == 0);
  std::ifstream err300(err_file);
  const std::string all_err((std::istreambuf_iterator<char>(err300)), std::istreambuf_iterator<char>());
  CHECK(summary_peak(r10.err) == summary_peak(all_err));
}

TEST_CASE("MJPEG stream: a frame cut inside a header segment costs that frame only", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(false);
  const auto frames = mjpeg_frames(4);
  // stb's JPEGs: SOI, APP0 (18 bytes), then DQT (132): 40 bytes end inside the DQT segment, whose
  // length then reaches into the next frame. Before, that frame was read as the cut one's rest
  // (three records: the next frame lost with it).
  REQUIRE(frames[1][20] == 0xFF);
  REQUIRE(frames[1][21] == 0xDB);
  const std::string path = tmp_dir("camera_cut_header") + "/cut.mjpeg";
  std::ofstream f(path, std::ios::binary);
  for (size_t i = 0; i < frames.size(); ++i)
    f.write(reinterpret_cast<const char*>(frames[i].data()), std::streamsize(i == 1 ? 40 : frames[i].size()));
  f.close();
  const CommandResult r = run_command("cat '" + path + "' | '" + mdfi_binary() + "' detect -q -j2 -f jsonl --stream - " + m.args());
  CHECK(r.exit_code == 3);
  std::istringstream lines(r.out);
  std::vector<json> records;
  for (std::string line; std::getline(lines, line);) records.push_back(json::parse(line));
  REQUIRE(records.size() == 4);
  CHECK(records[0].contains("detections"));
  CHECK(records[1].contains("error"));
  CHECK(records[2].contains("detections"));
  CHECK(records[3].contains("detections"));
}

TEST_CASE("MJPEG stream under --max-mem: frames run at the budget `mdfi plan` names for one of them", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(false);
  const auto frames = mjpeg_frames(3);
  const std::string dir = tmp_dir("camera_stream_budget");
  std::ofstream one(dir + "/frame.jpg", std::ios::binary), three(dir + "/three.mjpeg", std::ios::binary);
  one.write(reinterpret_cast<const char*>(frames[0].data()), std::streamsize(frames[0].size()));
  one.close();
  for (const auto& f : frames) three.write(reinterpret_cast<const char*>(f.data()), std::streamsize(f.size()));
  three.close();
  const CommandResult plan = run_command("'" + mdfi_binary() + "' plan -j2 -c " + m.cfg + " --max-mem 1B '" + dir + "/frame.jpg'");
  std::smatch got;
  INFO(plan.err);
  REQUIRE(std::regex_search(plan.err, got, std::regex("\\(([0-9]+) bytes\\)")));
  const std::string budget = got[1].str() + "B";
  // The stream's frames are unknown when the run is planned: it is fitted again to the first
  // one (before, planned for the network alone, every frame was refused at this budget).
  const CommandResult r = run_command("cat '" + dir + "/three.mjpeg' | '" + mdfi_binary() + "' detect -q -j2 -f jsonl --stream - " +
                                      m.args() + " --max-mem " + budget);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 3);
  CHECK(r.out.find("error") == std::string::npos);
}

TEST_CASE("MJPEG stream --latest: a fast producer's frames are skipped and counted", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(true);
  const auto frames = mjpeg_frames(120);
  const std::string dir = tmp_dir("camera_latest");
  std::ofstream all(dir + "/all.mjpeg", std::ios::binary);
  for (const auto& f : frames) all.write(reinterpret_cast<const char*>(f.data()), std::streamsize(f.size()));
  all.close();
  const CommandResult r = run_command("cat " + dir + "/all.mjpeg | '" + mdfi_binary() +
                                      "' detect -j1 -f jsonl --stream - --latest " + m.args());
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  size_t records = 0, skipped = 0;
  long last = -1;
  for (std::string line; std::getline(lines, line);) {
    const json j = json::parse(line);
    CHECK(j["frame"].get<long>() > last);
    last = j["frame"];
    skipped += j.value("skipped", size_t(0));
    ++records;
  }
  CHECK(records < 120);
  CHECK(skipped > 0);
  CHECK(last == 119);  // the newest frame is always the last one processed
  CHECK(records + skipped == 120);
}

TEST_CASE("--list - with a slow producer: each record as its line arrives", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(false);
  Child c("'" + mdfi_binary() + "' detect -q -j2 -f jsonl --list - " + m.args());
  const std::string first_path = shared_path("models/images/dog.png") + "\n";
  c.write_all(first_path.data(), first_path.size());
  const std::string first = c.read_line(60000);
  REQUIRE(!first.empty());  // before the second path is even written
  CHECK(json::parse(first)["image"] == shared_path("models/images/dog.png"));
  const std::string second_path = shared_path("models/images/eagle.png") + "\n";
  c.write_all(second_path.data(), second_path.size());
  const std::string second = c.read_line(60000);
  REQUIRE(!second.empty());
  CHECK(json::parse(second)["image"] == shared_path("models/images/eagle.png"));
  CHECK(c.wait() == 0);
}

TEST_CASE("images from stdin, a FIFO and /dev/stdin", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(false);
  const std::string img = shared_path("models/images/dog.png");
  const std::string bin = "'" + mdfi_binary() + "' detect -q -j2 -f json " + m.args();
  const CommandResult direct = run_command(bin + " '" + img + "'");
  REQUIRE(direct.exit_code == 0);
  const json want = detections(direct.out)["detections"];
  const CommandResult dash = run_command("cat '" + img + "' | " + bin + " -");
  REQUIRE(dash.exit_code == 0);
  CHECK(detections(dash.out)["detections"] == want);
  const CommandResult devstdin = run_command("cat '" + img + "' | " + bin + " /dev/stdin");
  REQUIRE(devstdin.exit_code == 0);
  CHECK(detections(devstdin.out)["detections"] == want);
  const std::string fifo = tmp_dir("camera_fifo") + "/photo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CommandResult viafifo = run_command("(cat '" + img + "' > '" + fifo + "' &) ; " + bin + " '" + fifo + "'");
  REQUIRE(viafifo.exit_code == 0);
  CHECK(detections(viafifo.out)["detections"] == want);
}

TEST_CASE("one image from stdin under --max-mem: planned for its decoder and its held bytes", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(false);
  const std::string img = shared_path("models/images/dog.png");
  // The file's smallest budget: stdin's bytes are held in memory as well, so it is not enough
  // there; before, the run was planned for the network alone and the image refused at any
  // budget that fitted the network, naming the need beside that schedule.
  const CommandResult plan = run_command("'" + mdfi_binary() + "' plan -j2 -c " + m.cfg + " --max-mem 1B '" + img + "'");
  std::smatch got;
  INFO(plan.err);
  REQUIRE(std::regex_search(plan.err, got, std::regex("\\(([0-9]+) bytes\\)")));
  const std::string bin = "'" + mdfi_binary() + "' detect -q -j2 -f json " + m.args();
  const CommandResult tight = run_command("cat '" + img + "' | " + bin + " --max-mem " + got[1].str() + "B -");
  INFO(tight.err);
  REQUIRE(tight.exit_code == 4);
  std::smatch runs;
  REQUIRE(std::regex_search(tight.err, runs, std::regex("--max-mem [0-9.]+ [kMG]?B \\(([0-9]+) bytes\\) runs it")));
  const size_t need = std::stoul(runs[1].str());
  CHECK(need > std::stoul(got[1].str()));
  const std::string report = tmp_dir("camera_stdin_budget") + "/report.json";
  const CommandResult fits = run_command("cat '" + img + "' | " + bin + " --max-mem " + std::to_string(need) +
                                         "B --mem-report='" + report + "' -");
  INFO(fits.err);
  REQUIRE(fits.exit_code == 0);
  std::ifstream f(report);
  CHECK(json::parse(f)["peak_bytes"].get<double>() <= double(need));
  const CommandResult under = run_command("cat '" + img + "' | " + bin + " --max-mem " + std::to_string(need - 1) + "B -");
  CHECK(under.exit_code == 4);
  // bench runs the image several times: stdin's bytes are read once (before, the warm-up took
  // them and the first timed run found stdin empty).
  const CommandResult bench = run_command("cat '" + img + "' | '" + mdfi_binary() + "' bench -q -j2 -r 2 " + m.args() +
                                          " --max-mem " + std::to_string(need) + "B -");
  INFO(bench.err);
  CHECK(bench.exit_code == 0);
}

namespace {

// A JPEG of `px` with an APP1 Exif segment (little-endian TIFF, IFD0 with one Orientation
// entry) right after SOI, as cameras write it.
std::string jpeg_with_orientation(const std::string& path, const std::vector<uint8_t>& px, int w, int h, int orientation) {
  std::vector<uint8_t> jpg;
  REQUIRE(stbi_write_jpg_to_func(add_jpeg_bytes, &jpg, w, h, 3, px.data(), 90));
  const uint8_t tiff[] = {'I', 'I', 42, 0, 8, 0, 0, 0,                        // header, IFD0 at 8
                          1, 0,                                              // one entry
                          0x12, 0x01, 3, 0, 1, 0, 0, 0, uint8_t(orientation), 0, 0, 0,  // SHORT
                          0, 0, 0, 0};                                       // no next IFD
  std::vector<uint8_t> app1 = {0xFF, 0xE1, 0, 0, 'E', 'x', 'i', 'f', 0, 0};
  app1.insert(app1.end(), std::begin(tiff), std::end(tiff));
  const size_t len = app1.size() - 2;
  app1[2] = uint8_t(len >> 8);
  app1[3] = uint8_t(len & 0xFF);
  jpg.insert(jpg.begin() + 2, app1.begin(), app1.end());
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(jpg.data()), std::streamsize(jpg.size()));
  return path;
}

}  // namespace

TEST_CASE("--exif-rotate turns a sideways camera photo upright; --fast-decode keeps the detections", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(true);
  const std::string dir = tmp_dir("camera_exif");
  const int w = 1536, h = 1152;
  const std::vector<uint8_t> upright = upscaled_dog(w, h);
  // Stored turned 90 degrees counter-clockwise; orientation 6 says "turn clockwise to view".
  std::vector<uint8_t> sideways(upright.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)  // upright (x, y) lands at stored (y, w - 1 - x) of an h x w image
      std::memcpy(&sideways[(size_t(w - 1 - x) * h + y) * 3], &upright[(size_t(y) * w + x) * 3], 3);
  const std::string plain = jpeg_with_orientation(dir + "/upright.jpg", upright, w, h, 1);
  const std::string turned = jpeg_with_orientation(dir + "/sideways.jpg", sideways, h, w, 6);
  const std::string bin = "'" + mdfi_binary() + "' detect -q -j2 -f json " + m.args();
  const json want = detections(run_command(bin + " '" + plain + "'").out);
  const json as_stored = detections(run_command(bin + " '" + turned + "'").out);
  const json rotated = detections(run_command(bin + " --exif-rotate '" + turned + "'").out);
  // Darknet's behaviour by default: the stored (sideways) pixels and size.
  CHECK(as_stored["width"] == h);
  CHECK(as_stored["height"] == w);
  // Without the flag, one line says the photo is stored turned and names the flag; the record
  // carries it too. With the flag, nothing to say.
  const CommandResult hinted = run_command("'" + mdfi_binary() + "' detect -j2 -f json " + m.args() + " '" + turned + "'");
  CHECK(hinted.err.find("mdfi: warning: " + turned + ": EXIF orientation 6 (stored turned sideways) left unapplied") !=
        std::string::npos);
  CHECK(hinted.err.find("--exif-rotate turns the photo upright first") != std::string::npos);
  CHECK(detections(hinted.out)["warnings"].size() == 1);
  CHECK_FALSE(rotated.contains("warnings"));
  CHECK_FALSE(want.contains("warnings"));
  // With the flag, the photo as it was taken: its size and its boxes.
  CHECK(rotated["width"] == w);
  CHECK(rotated["height"] == h);
  require_close(rotated, want, double(w) / 320);
  // Decoding at a DCT scale gives a differently filtered input: the same objects are found.
  const json fast = detections(run_command(bin + " --fast-decode '" + plain + "'").out);
  REQUIRE(fast["detections"].size() == want["detections"].size());
  for (size_t i = 0; i < want["detections"].size(); ++i) {
    CHECK(fast["detections"][i]["class_id"] == want["detections"][i]["class_id"]);
    CHECK(std::fabs(fast["detections"][i]["confidence"].get<double>() - want["detections"][i]["confidence"].get<double>()) < 0.1);
  }
}

#include <jpeglib.h>  // the tests write progressive, CMYK and YCCK JPEGs with libjpeg's own encoder

namespace {

// colour: JCS_RGB (progressive), or JCS_CMYK / JCS_YCCK (baseline, Adobe APP14 marker with
// transform 0 / 2, samples inverted as Photoshop stores them: R = C * K / 255).
std::string libjpeg_file(const std::string& path, const std::vector<uint8_t>& px, int w, int h, J_COLOR_SPACE colour) {
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &buf, &size);
  c.image_width = JDIMENSION(w);
  c.image_height = JDIMENSION(h);
  const bool four = colour != JCS_RGB;
  c.input_components = four ? 4 : 3;
  c.in_color_space = four ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&c);
  if (colour == JCS_YCCK) jpeg_set_colorspace(&c, JCS_YCCK);
  jpeg_set_quality(&c, 90, TRUE);
  if (!four) jpeg_simple_progression(&c);
  jpeg_start_compress(&c, TRUE);
  std::vector<uint8_t> cmyk(size_t(w) * 4);
  while (c.next_scanline < c.image_height) {
    const uint8_t* rgb = &px[size_t(c.next_scanline) * w * 3];
    JSAMPROW row = const_cast<uint8_t*>(rgb);
    if (four) {
      for (int x = 0; x < w; ++x) {
        const int k = std::max({rgb[3 * x], rgb[3 * x + 1], rgb[3 * x + 2]});
        for (int i = 0; i < 3; ++i) cmyk[size_t(x) * 4 + size_t(i)] = uint8_t(k ? (rgb[3 * x + i] * 255 + k / 2) / k : 0);
        cmyk[size_t(x) * 4 + 3] = uint8_t(k);
      }
      row = cmyk.data();
    }
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(buf), std::streamsize(size));
  jpeg_destroy_compress(&c);
  std::free(buf);
  return path;
}

}  // namespace

TEST_CASE("a progressive 12 MP JPEG: its coefficient buffer counted, predicted, refused under a budget", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(true);
  const std::string dir = tmp_dir("camera_progressive");
  const int w = 4000, h = 3000;
  const std::string img = libjpeg_file(dir + "/progressive.jpg", upscaled_dog(w, h), w, h, JCS_RGB);
  const std::string report = dir + "/report.json";
  const CommandResult r = run_command("'" + mdfi_binary() + "' detect -q -j2 -f json " + m.args() + " --mem-report='" +
                                      report + "' '" + img + "'");
  REQUIRE(r.exit_code == 0);
  std::ifstream f(report);
  const json rep = json::parse(f);
  const double peak = rep["peak_bytes"], predicted = rep["predicted_peak_bytes"];
  CHECK(peak > 3.0 * w * h);  // 2 bytes per sample of 4:2:0 YCbCr: 3 bytes per pixel
  CHECK(std::fabs(peak - predicted) <= 0.01 * predicted);
  // A budget the coefficients cannot fit in is refused from the header.
  const CommandResult over = run_command("'" + mdfi_binary() + "' detect -q -j2 " + m.args() + " --max-mem 20M '" + img + "'");
  CHECK(over.exit_code == 4);
  CHECK(over.err.find("DCT coefficients") != std::string::npos);
  CHECK(over.err.find("refused before decoding") != std::string::npos);
  // mdfi plan IMAGE names the coefficient buffer (4:2:0, 4000x3000: 282,000 blocks of 128 bytes).
  const CommandResult plan = run_command("'" + mdfi_binary() + "' plan -c '" + m.cfg + "' '" + img + "'");
  REQUIRE(plan.exit_code == 0);
  CHECK(plan.out.find("this progressive JPEG holds its whole DCT coefficient buffer while it is decoded: 36.1 MB "
                      "(36096000 bytes;") != std::string::npos);
  // Just under the prediction (the coefficients fit, the whole does not): refused, and the
  // refusal says --fast-decode would not help (it does not shrink the coefficients).
  const CommandResult under = run_command("'" + mdfi_binary() + "' detect -q -j2 --reference " + m.args() + " --max-mem " +
                                          std::to_string(size_t(predicted) - 50000) + " '" + img + "'");
  INFO(under.err);
  CHECK(under.exit_code == 4);
  CHECK(under.err.find("--fast-decode does not help: this progressive JPEG holds its whole DCT coefficient buffer, 36.1 MB") !=
        std::string::npos);
  CHECK(under.err.find("try --fast-decode") == std::string::npos);
}

namespace {

double peak_of_run(const std::string& cmd, const std::string& report, double* predicted = nullptr) {
  const CommandResult r = run_command(cmd + " --mem-report='" + report + "'");
  INFO(cmd << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream f(report);
  const json rep = json::parse(f);
  if (predicted) *predicted = rep["predicted_peak_bytes"].get<double>();
  return rep["peak_bytes"].get<double>();
}

}  // namespace

TEST_CASE("CMYK and YCCK 12 MP JPEGs decoded by rows: as predicted and within 2 MB of the RGB JPEG with stb_image's boxes", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(true);
  const std::string dir = tmp_dir("camera_cmyk");
  const int w = 4000, h = 3000;
  const std::vector<uint8_t> px = upscaled_dog(w, h);
  const std::string bin = "'" + mdfi_binary() + "' detect -q -j2 -f json " + m.args();
  const std::string rgb = write_photo(dir, px, w, h, false);
  const double rgb_peak = peak_of_run(bin + " '" + rgb + "'", dir + "/report.json");
  for (J_COLOR_SPACE colour : {JCS_CMYK, JCS_YCCK}) {
    const std::string img = libjpeg_file(dir + (colour == JCS_CMYK ? "/cmyk.jpg" : "/ycck.jpg"), px, w, h, colour);
    INFO(img);
    double predicted = 0;
    const double peak = peak_of_run(bin + " '" + img + "'", dir + "/report.json", &predicted);
    // Before: stb_image's whole image, 153 MB reported (heaptrack: 91.8 MB).
    CHECK(std::fabs(peak - predicted) <= 1e6);
    CHECK(peak <= rgb_peak + 2e6);
    // libjpeg's CMYK rows turned into RGB as stb_image turns its own: the same boxes within a
    // few pixels of the network input (the IDCT and upsampling differ).
    const json rows = detections(run_command(bin + " '" + img + "'").out);
    const json whole = detections(run_command(bin + " --decoder stb '" + img + "'").out);
    REQUIRE(!rows["detections"].empty());
    require_close(rows, whole, double(w) / 320);
    // --fast-decode scales a CMYK file too: a budget just under its full-scale need refuses it,
    // naming --fast-decode, which then runs it.
    const std::string budget = " --max-mem " + std::to_string(size_t(predicted) - 20000) + "B";
    const CommandResult refused = run_command(bin + " --reference" + budget + " '" + img + "'");
    INFO(refused.err);
    CHECK(refused.exit_code == 4);
    CHECK(refused.err.find("try --fast-decode)") != std::string::npos);
    CHECK(run_command(bin + " --reference --fast-decode" + budget + " '" + img + "'").exit_code == 0);
  }
}

TEST_CASE("a 12 MP photo stored sideways under --exif-rotate: within 2 MB of the upright photo's peak and its boxes", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(true);
  const std::string dir = tmp_dir("camera_exif_12mp");
  const int w = 4000, h = 3000;
  const std::vector<uint8_t> upright = upscaled_dog(w, h);
  std::vector<uint8_t> sideways(upright.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      std::memcpy(&sideways[(size_t(w - 1 - x) * h + y) * 3], &upright[(size_t(y) * w + x) * 3], 3);
  const std::string plain = jpeg_with_orientation(dir + "/upright.jpg", upright, w, h, 1);
  const std::string turned = jpeg_with_orientation(dir + "/sideways.jpg", sideways, h, w, 6);
  const std::string bin = "'" + mdfi_binary() + "' detect -q -j2 -f json " + m.args();
  double predicted = 0;
  const double flat = peak_of_run(bin + " '" + plain + "'", dir + "/report.json");
  const double rotated = peak_of_run(bin + " --exif-rotate '" + turned + "'", dir + "/report.json", &predicted);
  // Before: the decoded photo held to turn it, +36.6 MB.
  CHECK(rotated <= flat + 2e6);
  CHECK(std::fabs(rotated - predicted) <= 0.01 * predicted);
  const json want = detections(run_command(bin + " '" + plain + "'").out);
  const json got = detections(run_command(bin + " --exif-rotate '" + turned + "'").out);
  CHECK(got["width"] == w);
  CHECK(got["height"] == h);
  require_close(got, want, double(w) / 320);
}

TEST_CASE("phone photos over 64 MP: 9248x6936 decoded by rows within 2 MB of dog.jpg's peak; --max-pixels refuses by name", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(true);
  const std::string dir = tmp_dir("camera_phone");
  const int w = 9248, h = 6936;  // 64.1 megapixels, a 64 MP phone sensor's photo
  const std::string img = write_photo(dir, upscaled_dog(w, h), w, h, false);
  auto peak_of = [&](const std::string& image) {
    const std::string report = dir + "/report.json";
    const CommandResult r = run_command("'" + mdfi_binary() + "' detect -q -j2 -f json " + m.args() + " --mem-report='" +
                                        report + "' '" + image + "'");
    INFO(image << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    std::ifstream f(report);
    return json::parse(f)["peak_bytes"].get<double>();
  };
  const double small = peak_of("/usr/share/darknet/data/dog.jpg"), big = peak_of(img);
  INFO("dog.jpg peak " << small << " bytes, 9248x6936 peak " << big);
  CHECK(big <= small + 2e6);
  // Under the photo's size, --max-pixels refuses it from the header, naming the option.
  const CommandResult refused = run_command("'" + mdfi_binary() + "' detect -q " + m.args() + " --max-pixels 48M '" + img + "'");
  INFO(refused.err);
  CHECK(refused.exit_code == 3);
  CHECK(refused.err.find("9248x6936 (64.1 megapixels), over the --max-pixels limit of 48 megapixels") != std::string::npos);
  // A bad value is a usage error that names the option.
  const CommandResult bad = run_command("'" + mdfi_binary() + "' detect -q " + m.args() + " --max-pixels lots '" + img + "'");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--max-pixels") != std::string::npos);
  // Decoded whole (stb_image: Darknet's exact pixels), the default limit is 64 MP and the refusal says how to raise it.
  const CommandResult whole = run_command("'" + mdfi_binary() + "' detect -q " + m.args() + " --decoder stb '" + img + "'");
  INFO(whole.err);
  CHECK(whole.exit_code == 3);
  CHECK(whole.err.find("over the limit of 64 megapixels for images decoded whole (--max-pixels raises it)") !=
        std::string::npos);
  ::unlink(img.c_str());
}

TEST_CASE("a stream frame with corrupt entropy data, and bytes between frames, are recorded as warnings", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const Model m = yolo_fastest(false);
  auto frames = mjpeg_frames(3);
  // Frame 1: Darknet's dog.jpg (its scan has restart markers, so libjpeg resynchronises) with
  // four bytes in the middle of its entropy-coded data changed (none becomes FF, a marker).
  const std::string dog = slurp("/usr/share/darknet/data/dog.jpg");
  REQUIRE(!dog.empty());
  std::vector<uint8_t> bad(dog.begin(), dog.end());
  size_t sos = 0;
  for (size_t i = 0; i + 1 < bad.size(); ++i)
    if (bad[i] == 0xFF && bad[i + 1] == 0xDA) sos = i;
  REQUIRE(sos > 0);
  const size_t from = sos + (bad.size() - sos) / 2;
  for (size_t i = from; i < from + 4; ++i)
    if (bad[i] != 0xFF && bad[i - 1] != 0xFF) bad[i] = (bad[i] ^ 0x55) == 0xFF ? 0x12 : uint8_t(bad[i] ^ 0x55);
  frames[1] = bad;
  std::vector<uint8_t> stream(frames[0]);
  stream.insert(stream.end(), bad.begin(), bad.end());
  const std::string junk = "not a frame";
  stream.insert(stream.end(), junk.begin(), junk.end());
  stream.insert(stream.end(), frames[2].begin(), frames[2].end());
  const std::string path = tmp_dir("camera_corrupt") + "/stream.mjpg";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(stream.data()), std::streamsize(stream.size()));
  const CommandResult r = run_command("'" + mdfi_binary() + "' detect -j2 -f jsonl --stream '" + path + "' " + m.args());
  INFO(r.err);
  std::vector<json> recs;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) recs.push_back(json::parse(line));
  REQUIRE(recs.size() == 3);
  CHECK_FALSE(recs[0].contains("warnings"));
  // The corrupt frame is decoded past its damage, with a warning in the record and on stderr.
  REQUIRE(recs[1].contains("warnings"));
  CHECK(recs[1]["warnings"][0].get<std::string>().find("corrupt JPEG data decoded past (Corrupt JPEG data: ") == 0);
  CHECK(r.err.find(path + "#1: corrupt JPEG data") != std::string::npos);
  REQUIRE(recs[2].contains("warnings"));
  CHECK(recs[2]["warnings"][0] == std::to_string(junk.size()) + " bytes that were no JPEG data skipped before this frame");
  CHECK(r.err.find(path + "#2: " + std::to_string(junk.size()) + " bytes that were no JPEG data") != std::string::npos);
}

TEST_CASE("threads left to mdfi give a core that another process keeps busy back to it, same results", "[camera]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 2) MDFI_SKIP(Need::kOther, "one core: there is no thread to give back");
  const Model m = yolo_fastest(true);
  const std::string dir = tmp_dir("camera_cores");
  std::string list;
  for (int i = 0; i < 30; ++i)
    for (const char* f : {"dog", "person", "horses"}) list += std::string("/usr/share/darknet/data/") + f + ".jpg\n";
  write_file(dir + "/list", list);
  const std::string run = "'" + mdfi_binary() + "' detect -f jsonl " + m.args() + " --list '" + dir + "/list'";
  const CommandResult one = run_command(run + " -q --threads 1");
  REQUIRE(one.exit_code == 0);
  // One process spinning beside it, for as long as mdfi runs.
  const pid_t busy = ::fork();
  REQUIRE(busy >= 0);
  if (busy == 0) {
    volatile unsigned long n = 0;
    while (true) n = n + 1;
  }
  const CommandResult shared = run_command(run + " -v");
  ::kill(busy, SIGKILL);
  ::waitpid(busy, nullptr, 0);
  INFO(shared.err.substr(0, 2000));
  REQUIRE(shared.exit_code == 0);
  // -v says when the count changed and to what; the records are the one-thread run's.
  std::smatch said;
  REQUIRE(std::regex_search(shared.err, said, std::regex("other processes keep ([0-9.]+) cores busy: ([0-9]+) threads")));
  CHECK(std::stoi(said[2]) < cores);
  std::istringstream a(one.out), b(shared.out);
  int records = 0;
  for (std::string la, lb; std::getline(a, la) && std::getline(b, lb); ++records) {
    json ja = json::parse(la), jb = json::parse(lb);
    CHECK(ja["detections"] == jb["detections"]);
  }
  CHECK(records == 90);
}
