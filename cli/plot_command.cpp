#include "cli/plot_command.hpp"

#include <fmt/format.h>

#include "model/engine.hpp"
#include "io/input_error.hpp"
#include "chart/plot_charts.hpp"
#include "io/spec_loader.hpp"
#include "chart/figure_file.hpp"

namespace roofline::cli {

using namespace io;
using namespace chart;

void add_plot_options(Options& o, PlotArgs& a) {
  add_workload_options(o, a.workload);
  o.add("--kind,-k", a.kind, "roofline, batch or context").one_of({"roofline", "batch", "context"}).show_default();
  o.add("--out,-o", a.out, "a .svg or .png file [characters on stdout]");
}

void run_plot(const PlotArgs& a, std::ostream& out) {
  if (a.point.model.empty() || a.point.gpu.empty()) throw InputError("plot: --model and --gpu are required");
  const ModelSpec m = load_model(a.point.model);
  const GpuSpec g = load_gpu(a.point.gpu);
  const Workload w = make_workload(a.point, m, g);
  const Detail detail = a.out.empty() ? Detail::summary : Detail::full;
  const Report r = evaluate(m, g, w);
  const Figure f = a.kind == "batch"     ? batch_figure(r)
                   : a.kind == "context" ? context_figure(r)
                                         : roofline_figure(r, detail);
  if (a.out.empty()) {
    out << text_figure(f, 100, f.panels.size() > 1 ? 44 : 30);
  } else {
    write_figure(f, a.out);
    out << "wrote " << a.out << "\n";
  }
}

}  // namespace roofline::cli
