#include "plot_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "engine.hpp"
#include "input_error.hpp"
#include "plot_charts.hpp"
#include "png_canvas.hpp"
#include "spec_loader.hpp"
#include "svg_canvas.hpp"
#include "text_canvas.hpp"

namespace roofline::cli {

namespace {

// 960 units wide; 180 of height for titles and legend plus 420 a panel; PNGs have two pixels a unit.
constexpr double kWidth = 960, kPanelHeight = 420, kChrome = 180, kPngScale = 2;

}  // namespace

void write_figure(const Figure& figure, const std::string& path) {
  const double height = kChrome + kPanelHeight * static_cast<double>(figure.panels.size());
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".png") {
    write_png(path, kWidth, height, kPngScale, [&](Canvas& c) { draw(figure, c); });
    return;
  }
  if (ext != ".svg") throw InputError(fmt::format("--out {}: name a .svg or .png file", path));
  SvgCanvas svg(kWidth, height);
  draw(figure, svg);
  std::ofstream file(path, std::ios::binary);
  file << svg.document();
  if (!file.flush()) throw InputError(fmt::format("--out {}: cannot write the file", path));
}

std::string text_figure(const Figure& figure, int columns, int rows) {
  TextCanvas canvas(columns, rows);
  draw(figure, canvas);
  return canvas.lines();
}

CLI::App* add_plot_command(CLI::App& app, PlotArgs& a) {
  CLI::App* p = app.add_subcommand("plot", "charts: the roofline with every operator, decode against batch or context");
  add_workload_options(*p, a.point);
  p->add_option("--kind,-k", a.kind, "roofline, batch or context")
      ->check(CLI::IsMember({"roofline", "batch", "context"}))
      ->capture_default_str();
  p->add_option("--out,-o", a.out, "a .svg or .png file [characters on stdout]");
  return p;
}

void run_plot(const PlotArgs& a, std::ostream& out) {
  if (a.point.model.empty() || a.point.gpu.empty()) throw InputError("plot: --model and --gpu are required");
  const ModelSpec m = load_model(a.point.model);
  const GpuSpec g = load_gpu(a.point.gpu);
  const Workload w = make_workload(a.point, m, g);
  const Detail detail = a.out.empty() ? Detail::summary : Detail::full;
  const Figure f = a.kind == "batch"     ? batch_figure(m, g, w)
                   : a.kind == "context" ? context_figure(m, g, w)
                                         : roofline_figure(evaluate(m, g, w), detail);
  if (a.out.empty()) {
    out << text_figure(f, 100, f.panels.size() > 1 ? 44 : 30);
  } else {
    write_figure(f, a.out);
    out << "wrote " << a.out << "\n";
  }
}

}  // namespace roofline::cli
