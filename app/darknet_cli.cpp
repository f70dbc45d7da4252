#include "darknet_cli.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "data_file.h"

namespace mdfi::app {

namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  return s.size() > x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

// The options of one Darknet form, split from its positional arguments as Darknet's find_arg()
// does (it deletes each option it finds, so positions count only what remains).
struct Split {
  std::vector<std::string> pos;
  std::map<std::string, std::string> opt;  // "-thresh" -> "0.3"; flags -> ""
  std::string error;
};

Split split(int argc, char** argv, int first, const std::map<std::string, bool>& known,
            const std::map<std::string, std::string>& unsupported) {
  Split s;
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.') {
      auto k = known.find(a);
      if (k == known.end()) {
        auto u = unsupported.find(a);
        s.error = "darknet option " + a + " is not supported by mdfi" +
                  (u != unsupported.end() ? " (" + u->second + ")" : std::string(" (see mdfi --help)"));
        return s;
      }
      if (k->second) {
        if (i + 1 >= argc) {
          s.error = "darknet option " + a + " needs a value";
          return s;
        }
        s.opt[a] = argv[++i];
      } else {
        s.opt[a] = "";
      }
      continue;
    }
    s.pos.push_back(a);
  }
  return s;
}

// What Darknet's other modes are in mdfi.
const std::map<std::string, std::string>& unsupported_options() {
  static const std::map<std::string, std::string> m = {
      {"-map", "mdfi does not compute mAP"},
      {"-benchmark", "use mdfi bench"},
      {"-benchmark_layers", "use mdfi bench: it prints per-layer times"},
      {"-letter_box", "mdfi follows the cfg's letter_box=; --compat pjreddie letterboxes every image"},
      {"-json_port", "mdfi prints JSON on stdout: mdfi detect --format darknet-json"},
      {"-mjpeg_port", "mdfi draws pictures with mdfi detect --draw DIR"},
      {"-show", "mdfi never opens windows; mdfi detect --draw DIR writes the pictures"},
      {"-c", "cameras and videos are not inputs of mdfi"},
      {"-width", "use mdfi detect --width"},
      {"-height", "use mdfi detect --height"},
      {"-iou_thresh", "use mdfi detect --nms"},
      {"-out_filename", "videos are not inputs of mdfi; mdfi detect --draw DIR writes pictures"},
      {"-prefix", "use mdfi detect --draw DIR"},
  };
  return m;
}

}  // namespace

DarknetCommand translate_darknet(int argc, char** argv) {
  DarknetCommand c;
  if (argc < 2) return c;
  const std::string cmd = argv[1];
  const std::string self = argv[0];
  std::string mode = argc > 2 ? argv[2] : "";

  if (cmd == "detector" || cmd == "classifier") {
    c.matched = true;
    const bool det = cmd == "detector";
    if (det && mode == "demo") {
      // A camera or video file: mdfi reads MJPEG frames from a pipe instead of opening devices.
      c.error = "darknet 'detector demo' (a camera or video window) is not supported; mdfi reads camera frames as "
                "an MJPEG stream: rpicam-vid -n -t 0 --codec mjpeg -o - | mdfi detect --net NAME --stream - --latest, "
                "or ffmpeg -f v4l2 -i /dev/video0 -f mjpeg - | mdfi detect ... --stream - (docs/raspberry-pi.md)";
      return c;
    }
    if ((det && mode != "test") || (!det && mode != "predict")) {
      c.error = "darknet '" + cmd + (mode.empty() ? "" : " " + mode) + "' is not supported: mdfi only runs inference (" +
                (det ? "darknet detector test DATA CFG WEIGHTS [IMG], or mdfi detect" :
                       "darknet classifier predict DATA CFG WEIGHTS [IMG], or mdfi classify") + ")";
      return c;
    }
    const std::map<std::string, bool> known =
        det ? std::map<std::string, bool>{{"-thresh", true},     {"-hier", true},   {"-out", true},
                                          {"-ext_output", false}, {"-dont_show", false}, {"-save_labels", false},
                                          {"-i", true},          {"-gpus", true},   {"-nogpu", false}}
            : std::map<std::string, bool>{{"-t", true}, {"-i", true}, {"-gpus", true}, {"-nogpu", false},
                                          {"-dont_show", false}};
    Split s = split(argc, argv, 3, known, unsupported_options());
    if (!s.error.empty()) return c.error = s.error, c;
    if (s.pos.size() < 3) {
      c.error = "darknet " + cmd + " " + mode + " needs DATA CFG WEIGHTS [IMAGE]" +
                (s.pos.size() == 2 ? " (mdfi cannot run without a weights file; make test weights with mdfi gen-weights)" : "");
      return c;
    }
    if (s.pos.size() > 4) {
      c.error = "unexpected argument '" + s.pos[4] + "' after darknet " + cmd + " " + mode + " DATA CFG WEIGHTS IMAGE";
      return c;
    }
    auto data = parse_data_file(s.pos[0]);
    if (!data.ok()) return c.error = data.status().message(), c;
    c.argv = {self, det ? "detect" : "classify", "-c", s.pos[1], "-w", s.pos[2], "--data", s.pos[0], "--darknet-text"};
    if (det) {
      c.argv.insert(c.argv.end(), {"--thresh", s.opt.count("-thresh") ? s.opt["-thresh"] : "0.25"});
      if (s.opt.count("-hier")) c.argv.insert(c.argv.end(), {"--hier", s.opt["-hier"]});
      if (s.opt.count("-ext_output")) c.argv.push_back("--ext-output");
      if (s.opt.count("-save_labels")) c.argv.push_back("--save-labels");
      if (s.opt.count("-out")) c.argv.insert(c.argv.end(), {"--darknet-json-out", s.opt["-out"]});
      c.argv.insert(c.argv.end(), {"--darknet-predictions", "predictions.jpg"});
    } else {
      const DataFile::Entry* top_entry = data->find("top");
      const int data_top = top_entry ? std::atoi(top_entry->value.c_str()) : 0;
      const std::string top = s.opt.count("-t") ? s.opt["-t"] : std::to_string(data_top > 0 ? data_top : 1);
      c.argv.insert(c.argv.end(), {"--top", top});
    }
    for (const char* ignored : {"-i", "-gpus", "-nogpu"})
      if (s.opt.count(ignored))
        c.notes.push_back(std::string(ignored) + (s.opt[ignored].empty() ? "" : " " + s.opt[ignored]) +
                          " ignored: mdfi runs on the CPU (--backend opencl for a GPU)");
    if (s.pos.size() == 4) c.argv.push_back(s.pos[3]);
    else c.argv.insert(c.argv.end(), {"--list", "-"});
    return c;
  }

  // `darknet detect CFG WEIGHTS [IMG]`, told apart from `mdfi detect IMG...` by the extensions.
  if (cmd == "detect" && argc >= 4 && ends_with(argv[2], ".cfg") && ends_with(argv[3], ".weights")) {
    c.matched = true;
    Split s = split(argc, argv, 2, {{"-thresh", true}, {"-ext_output", false}, {"-dont_show", false},
                                    {"-i", true}, {"-gpus", true}, {"-nogpu", false}},
                    unsupported_options());
    if (!s.error.empty()) return c.error = s.error, c;
    if (s.pos.size() > 3) {
      c.error = "unexpected argument '" + s.pos[3] + "' after darknet detect CFG WEIGHTS IMAGE";
      return c;
    }
    // Darknet reads cfg/coco.data from the current directory; without one, the labels mdfi
    // finds for a --cfg (CFG_STEM.names or the one .names file beside the cfg).
    c.argv = {self, "detect", "-c", s.pos[0], "-w", s.pos[1], "--darknet-text",
              "--thresh", s.opt.count("-thresh") ? s.opt["-thresh"] : "0.24"};
    if (exists("cfg/coco.data")) c.argv.insert(c.argv.end(), {"--data", "cfg/coco.data"});
    if (s.opt.count("-ext_output")) c.argv.push_back("--ext-output");
    c.argv.insert(c.argv.end(), {"--darknet-predictions", "predictions.jpg"});
    for (const char* ignored : {"-i", "-gpus", "-nogpu"})
      if (s.opt.count(ignored))
        c.notes.push_back(std::string(ignored) + " ignored: mdfi runs on the CPU (--backend opencl for a GPU)");
    if (s.pos.size() == 3) c.argv.push_back(s.pos[2]);
    else c.argv.insert(c.argv.end(), {"--list", "-"});
    return c;
  }
  return c;
}

}  // namespace mdfi::app
