#include "cli/plot_command.hpp"

#include "report/warning_text.hpp"

#include <fmt/format.h>

#include <optional>

#include "model/engine.hpp"
#include "io/input_error.hpp"
#include "chart/plot_charts.hpp"
#include "io/spec_loader.hpp"
#include "chart/figure_file.hpp"
#include "cli/atomic_file.hpp"

namespace roofline::cli {

using namespace io;
using namespace chart;

void write_figure_file(const Figure& f, const std::string& path, std::string_view flag, std::ostream& notes) {
  const std::optional<FigureFormat> format = has_extension(path, ".svg")   ? std::optional(FigureFormat::svg)
                                             : has_extension(path, ".png") ? std::optional(FigureFormat::png)
                                                                           : std::nullopt;
  if (!format) throw InputError(fmt::format("--{} {}: name a .svg or .png file", flag, path));
  AtomicFile file(path, flag, &notes);
  try {
    write_figure(f, *format, file.stream());
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("--{} {}: {}", flag, path, e.what()));
  }
  file.commit();
}

void add_plot_options(Options& o, PlotArgs& a) {
  add_workload_options(o, a.workload);
  o.add("--kind,-k", a.kind, "roofline, batch or context").one_of({"roofline", "batch", "context"}).show_default();
  o.add("--out,-o", a.out, "a .svg or .png file [characters on stdout]").writes_file();
  add_lang_option(o, a.lang);
}

void run_plot(const PlotArgs& a, std::ostream& out) {
  const OnePoint p = one_point(a.workload, "plot");
  const Detail detail = a.out.empty() ? Detail::summary : Detail::full;
  const Report r = evaluate(p.model, p.gpu, p.workload);
  const Figure f = a.kind == "batch"     ? batch_figure(r, a.lang)
                   : a.kind == "context" ? context_figure(r, a.lang)
                                         : roofline_figure(r, detail, a.lang);
  if (a.out.empty()) {
    out << text_figure(f, 100, f.panels.size() > 1 ? 44 : 30);
  } else {
    write_figure_file(f, a.out, "out", out);
    out << "wrote " << a.out << "\n";
  }
  // What the point assumed (a checkpoint's compute format, a context past the trained one) moves
  // the figure's ridge and B*: said under it, as explain says it.
  for (const std::string& w : report::warning_texts(r, a.lang)) out << report::warning_label(a.lang) << w << "\n";
}

}  // namespace roofline::cli
