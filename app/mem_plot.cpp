#include "mem_plot.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace mdfi::app {

size_t all_resident_bytes(const Network& net) {
  size_t total = net.input_shape().bytes();
  for (const auto& l : net.layers) total += l->param_floats() * sizeof(float) + (l->aliases_input() ? 0 : l->out.bytes());
  return total;
}

Status write_mem_plot(const std::string& path, const PreparedModel& pm, const ImageRun& run) {
  const double width = 960, height = 420, left = 70, right = 20, top = 40, bottom = 50;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  const size_t n = run.stats.size();
  size_t peak = 1;
  for (const LayerRunStats& s : run.stats) peak = std::max(peak, s.heap_peak);
  const size_t darknet = all_resident_bytes(pm.net);
  // The y axis reaches the larger of our peak and Darknet's line; when Darknet's is off by more
  // than 4x, the axis is cut and the line is labelled with its value instead.
  const bool darknet_on_axis = darknet <= 4 * peak;
  const double ymax = double(darknet_on_axis ? std::max(peak, darknet) : peak) * 1.15;
  auto y = [&](double bytes) { return top + plot_h - bytes / ymax * plot_h; };
  const double bar = plot_w / double(std::max<size_t>(n, 1));

  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n";
  svg << "<text x='" << left << "' y='22' font-size='15'>mdfi live heap per layer: " << pm.model.name << " ("
      << pm.net.net.w << "x" << pm.net.net.h << "), peak " << format_bytes(peak) << "</text>\n";
  for (int t = 0; t <= 4; ++t) {
    const double v = ymax * t / 4;
    svg << "<line x1='" << left << "' x2='" << left + plot_w << "' y1='" << y(v) << "' y2='" << y(v)
        << "' stroke='#ddd'/><text x='" << left - 6 << "' y='" << y(v) + 4 << "' text-anchor='end'>"
        << format_bytes(size_t(v)) << "</text>\n";
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
  const double dy = darknet_on_axis ? y(double(darknet)) : top + 4;
  svg << "<line x1='" << left << "' x2='" << left + plot_w << "' y1='" << dy << "' y2='" << dy
      << "' stroke='#c0392b' stroke-width='2' stroke-dasharray='6,4'/>\n<text x='" << left + plot_w << "' y='"
      << dy - 5 << "' text-anchor='end' fill='#c0392b'>Darknet keeps everything resident: at least "
      << format_bytes(darknet) << (darknet_on_axis ? "" : " (off this scale)") << "</text>\n";
  const double ly = height - 18;
  double lx = left;
  for (auto [name, colour] : {std::pair<const char*, const char*>{"activations", "#4a90d9"}, {"weights", "#e8a33d"},
                              {"workspace", "#7bbf6a"}}) {
    svg << "<rect x='" << lx << "' y='" << ly - 10 << "' width='12' height='12' fill='" << colour << "'/><text x='"
        << lx + 16 << "' y='" << ly << "'>" << name << "</text>\n";
    lx += 110;
  }
  svg << "<text x='" << left + plot_w << "' y='" << ly << "' text-anchor='end'>layer 0 .. " << (n ? n - 1 : 0)
      << "</text>\n</svg>\n";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return Status(ErrorKind::kIo, path + ": cannot create the memory plot");
  const std::string text = svg.str();
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) return Status(ErrorKind::kIo, path + ": write failed");
  return Status::Ok();
}

}  // namespace mdfi::app
