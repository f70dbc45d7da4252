#include "mem_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace mdfi::app {

size_t all_resident_bytes(const Network& net) {
  size_t total = net.input_shape().bytes();
  for (const auto& l : net.layers) total += l->param_floats() * sizeof(float) + (l->aliases_input() ? 0 : l->out.bytes());
  return total;
}

double nice_step(double raw) {
  if (!(raw > 0)) return 1;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw * (1 - 1e-9)) return m * mag;
  return 10 * mag;
}

namespace {

// Axis labels in round decimal units: "2 MB", "2.5 MB", "500 kB".
std::string tick_label(double bytes) {
  char buf[32];
  const char* unit = "B";
  double v = bytes;
  if (bytes >= 1e9) v = bytes / 1e9, unit = "GB";
  else if (bytes >= 1e6) v = bytes / 1e6, unit = "MB";
  else if (bytes >= 1e3) v = bytes / 1e3, unit = "kB";
  std::snprintf(buf, sizeof buf, "%g %s", std::round(v * 1000) / 1000, unit);
  return buf;
}

}  // namespace

Status write_mem_plot(const std::string& path, const PreparedModel& pm, const ImageRun& run) {
  const double width = 960, height = 440, left = 80, right = 20, top = 40, bottom = 70;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  const size_t n = run.stats.size();
  size_t peak = 1, peak_i = 0;
  for (size_t i = 0; i < n; ++i)
    if (run.stats[i].heap_peak > peak) peak = run.stats[i].heap_peak, peak_i = i;
  const size_t darknet = all_resident_bytes(pm.net);
  // The axis reaches the larger of our peak and Darknet's total when that is within 4x;
  // otherwise Darknet's total is only written out, never drawn at a height it does not have.
  const bool darknet_on_axis = darknet <= 4 * peak;
  const double top_value = double(darknet_on_axis ? std::max(peak, darknet) : peak);
  const double step = nice_step(top_value / 5);
  const double ymax = std::ceil(top_value * 1.08 / step) * step;  // room for the peak label
  auto y = [&](double bytes) { return top + plot_h - bytes / ymax * plot_h; };
  const double bar = plot_w / double(std::max<size_t>(n, 1));

  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n";
  svg << "<text x='" << left << "' y='22' font-size='15'>mdfi live heap per layer: " << pm.model.name << " ("
      << pm.net.net.w << "x" << pm.net.net.h << "), peak " << format_bytes(peak) << "</text>\n";
  for (double v = 0; v <= ymax * (1 + 1e-9); v += step) {
    svg << "<line x1='" << left << "' x2='" << left + plot_w << "' y1='" << y(v) << "' y2='" << y(v)
        << "' stroke='#ddd'/><text class='ytick' data-bytes='" << std::llround(v) << "' x='" << left - 6 << "' y='"
        << y(v) + 4 << "' text-anchor='end'>" << tick_label(v) << "</text>\n";
  }
  for (size_t i = 0; i < n; ++i) {
    const LayerRunStats& s = run.stats[i];
    const double w = double(s.weight_bytes), ws = double(s.workspace_bytes);
    const double act = std::max(0.0, double(s.heap_peak) - w - ws);
    const double x = left + bar * double(i);
    double base = 0;
    for (auto [v, colour] : {std::pair<double, const char*>{act, "#4a90d9"}, {w, "#e8a33d"}, {ws, "#7bbf6a"}}) {
      svg << "<rect x='" << x << "' y='" << y(base + v) << "' width='" << std::max(bar - 1, 0.5) << "' height='"
          << y(base) - y(base + v) << "' fill='" << colour << "'><title>layer " << s.index << " ["
          << pm.net.layers[size_t(s.index)]->kind() << "]: " << format_bytes(s.heap_peak) << "</title></rect>\n";
      base += v;
    }
  }
  // Layer indices under the bars: every k-th, k a round number keeping about 20 labels.
  const size_t every = std::max<size_t>(1, size_t(nice_step(double(n) / 20)));
  for (size_t i = 0; i < n; i += every) {
    const double cx = left + bar * (double(i) + 0.5);
    svg << "<line x1='" << cx << "' x2='" << cx << "' y1='" << top + plot_h << "' y2='" << top + plot_h + 4
        << "' stroke='#666'/><text class='xtick' x='" << cx << "' y='" << top + plot_h + 16
        << "' text-anchor='middle'>" << run.stats[i].index << "</text>\n";
  }
  svg << "<text x='" << left + plot_w / 2 << "' y='" << top + plot_h + 32 << "' text-anchor='middle'>layer</text>\n";
  if (n) {
    const double px = left + bar * (double(peak_i) + 0.5), py = y(double(peak));
    svg << "<g id='peak' data-layer='" << run.stats[peak_i].index << "' data-bytes='" << peak << "'><path d='M" << px
        << "," << py - 2 << " l-5,-8 h10 z' fill='#c0392b'/><text x='" << px << "' y='" << py - 13
        << "' text-anchor='" << (peak_i > n / 2 ? "end" : "start") << "' fill='#c0392b'>peak " << format_bytes(peak)
        << " at layer " << run.stats[peak_i].index << "</text></g>\n";
  }
  const double ly = height - 14;
  if (darknet_on_axis) {
    const double dy = y(double(darknet));
    svg << "<line id='darknet' data-bytes='" << darknet << "' x1='" << left << "' x2='" << left + plot_w << "' y1='"
        << dy << "' y2='" << dy << "' stroke='#c0392b' stroke-width='2' stroke-dasharray='6,4'/>\n<text x='"
        << left + plot_w << "' y='" << dy - 5 << "' text-anchor='end' fill='#c0392b'>Darknet keeps everything "
        << "resident: at least " << format_bytes(darknet) << "</text>\n";
  } else {
    svg << "<text id='darknet-note' x='" << left + plot_w << "' y='" << ly << "' text-anchor='end' fill='#c0392b'>"
        << "Darknet keeps everything resident: at least " << format_bytes(darknet) << " (" << std::fixed
        << std::setprecision(0) << double(darknet) / double(peak) << "x this peak, off the scale)</text>\n";
  }
  double lx = left;
  for (auto [name, colour] : {std::pair<const char*, const char*>{"activations", "#4a90d9"}, {"weights", "#e8a33d"},
                              {"workspace", "#7bbf6a"}}) {
    svg << "<rect x='" << lx << "' y='" << ly - 10 << "' width='12' height='12' fill='" << colour << "'/><text x='"
        << lx + 16 << "' y='" << ly << "'>" << name << "</text>\n";
    lx += 110;
  }
  svg << "</svg>\n";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return Status(ErrorKind::kIo, path + ": cannot create the memory plot");
  const std::string text = svg.str();
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) return Status(ErrorKind::kIo, path + ": write failed");
  return Status::Ok();
}

}  // namespace mdfi::app
