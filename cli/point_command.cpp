#include "cli/point_command.hpp"

#include "io/input_error.hpp"
#include "io/spec_loader.hpp"
#include "model/engine.hpp"
#include "report/report_record.hpp"
#include "report/warning_text.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

void add_point_options(Options& o, PointArgs& a) {
  add_workload_options(o, a.workload);
  o.flag("--ops", a.ops, "add the per-operator table");
  o.add("--format,-f", a.format, "output format").one_of(output_format_names()).show_default();
}

void run_point(const PointArgs& a, std::ostream& out, std::ostream& err) {
  const OnePoint p = one_point(a.workload, "");
  const Report r = evaluate(p.model, p.gpu, p.workload);
  const OutputFormat format = output_format(a.format);
  if (!info(format).carries_warnings) {
    for (const std::string& warning : warning_texts(r)) err << warning_label() << warning << "\n";
  }
  // JSON always carries the operators; tables and CSV show them when asked.
  const auto sink = make_sink(format, Shape::document, report_record_columns(a.ops), out);
  sink->add(ReportRecord(r, a.ops, true));
  sink->finish();
}

}  // namespace roofline::cli
