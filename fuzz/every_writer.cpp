#include "every_writer.hpp"

#include <nlohmann/json.hpp>
#include <tinyxml2.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "chart/plot_charts.hpp"
#include "chart/svg_canvas.hpp"
#include "chart/text_canvas.hpp"
#include "cli/app.hpp"
#include "report/output_format.hpp"
#include "report/report_columns.hpp"
#include "report/report_record.hpp"

namespace roofline::fuzz {

namespace {

std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 4000)) {
    const auto u = static_cast<unsigned char>(c);
    if (u == '\n' || (u >= 0x20 && u < 0x7f)) {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  return out;
}

void check_cell(const report::Cell& c, std::string_view column) {
  if (const double* v = std::get_if<double>(&c); v && !std::isfinite(*v)) {
    fail("a column is not finite", std::string(column) + " = " + std::to_string(*v));
  }
}

// A JSON document parses back, and every number in it is finite.
void check_json_numbers(const nlohmann::json& j, std::string_view text) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) fail("JSON holds a number that is not finite", text);
  if (j.is_structured()) {
    for (const auto& e : j) check_json_numbers(e, text);
  }
}

void check_json(std::string_view text, bool lines) {
  auto parse = [](std::string_view doc) {
    try {
      check_json_numbers(nlohmann::json::parse(doc), doc);
    } catch (const nlohmann::json::exception& e) {
      fail(std::string("JSON does not parse back: ") + e.what(), doc);
    }
  };
  if (!lines) return parse(text);
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    parse(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
}

// The OWASP rule for CSV opened in a spreadsheet: a cell that starts = + - @ is a formula unless
// it is prefixed with '. A name is checked only where it is plain enough to appear verbatim.
void check_csv_name(std::string_view csv, std::string_view name) {
  if (name.size() < 2 || std::string_view("=+-@").find(name[0]) == std::string_view::npos) return;
  if (std::none_of(name.begin(), name.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); })) return;
  if (name.find_first_of("\",\r\n") != std::string_view::npos) return;
  for (std::size_t at = csv.find(name); at != std::string_view::npos; at = csv.find(name, at + 1)) {
    if (at == 0 || csv[at - 1] != '\'') fail("a name reaches CSV as a formula", csv);
  }
}

std::size_t lines(std::string_view text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// The same report with every name a plain word: what the output's shape should be.
Report neutral(const Report& r) {
  Report n = r;
  n.model.spec.name = n.model.spec.source = "x";
  n.gpu.spec.name = n.gpu.spec.source = "x";
  if (n.gpu.spec.calibration) n.gpu.spec.calibration->device = n.gpu.spec.calibration->toolchain = n.gpu.spec.calibration->date = "x";
  return n;
}

std::string names_of(const Report& r) { return r.model.spec.name + "\n" + r.gpu.spec.name + "\n" + r.model.spec.source + "\n" + r.gpu.spec.source; }

std::string render(const Report& r, report::OutputFormat f, report::Shape shape, bool ops) {
  std::ostringstream out;
  const auto sink = report::make_sink(f, shape, report::report_record_columns(ops), out);
  const report::ReportRecord record(r, ops, true);
  sink->add(record);
  if (shape == report::Shape::rows) sink->add(record);
  sink->note("a note under the table");
  sink->finish();
  return std::move(out).str();
}

void check_sinks(const Report& r) {
  const Report plain = neutral(r);
  const std::string names = names_of(r);
  for (const report::OutputFormatInfo& f : report::output_formats()) {
    for (const report::Shape shape : {report::Shape::document, report::Shape::rows}) {
      for (const bool ops : {false, true}) {
        const std::string text = render(r, f.format, shape, ops);
        const std::string what = std::string(f.name) + (shape == report::Shape::rows ? " rows" : " document") + (ops ? " with ops" : "");
        switch (f.format) {
          case report::OutputFormat::json: check_json(text, false); break;
          case report::OutputFormat::jsonl: check_json(text, true); break;
          case report::OutputFormat::csv:
            check_csv_name(text, r.model.spec.name);
            check_csv_name(text, r.gpu.spec.name);
            break;
          case report::OutputFormat::table:
          case report::OutputFormat::markdown:
            check_terminal_text(what, text);
            check_no_inf_nan(what, text, names);
            if (lines(text) != lines(render(plain, f.format, shape, ops))) fail("a name changes the lines of " + what, text);
            break;
        }
      }
    }
  }
}

void check_figure(const chart::Figure& f, std::string_view kind, std::string_view names) {
  chart::SvgCanvas svg(960, 180 + 420 * static_cast<double>(f.panels.size()));
  chart::draw(f, svg);
  const std::string document = svg.document();
  tinyxml2::XMLDocument xml;
  if (xml.Parse(document.data(), document.size()) != tinyxml2::XML_SUCCESS) {
    fail(std::string("the ") + std::string(kind) + " SVG is not well-formed XML: " + xml.ErrorStr(), document);
  }
  chart::TextCanvas text(100, f.panels.size() > 1 ? 44 : 30);
  chart::draw(f, text);
  const std::string lines = text.lines();
  check_terminal_text(std::string("the ") + std::string(kind) + " chart in characters", lines);
  check_no_inf_nan(std::string("the ") + std::string(kind) + " chart in characters", lines, names);
}

void check_charts(const Report& r) {
  const std::string names = names_of(r);
  check_figure(chart::roofline_figure(r, chart::Detail::full), "roofline (full)", names);
  check_figure(chart::roofline_figure(r, chart::Detail::summary), "roofline (summary)", names);
  check_figure(chart::batch_figure(r), "batch", names);
  check_figure(chart::context_figure(r), "context", names);
}

}  // namespace

void fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "\n== fuzz check failed: %.*s\n", static_cast<int>(what.size()), what.data());
  if (!detail.empty()) std::fprintf(stderr, "%s\n", escaped(detail).c_str());
  std::abort();
}

void check_columns_finite(const Report& r) {
  for (const report::Column& c : report::report_columns()) check_cell(c.get(r), c.json_path);
  for (const report::OpRow& op : report::op_rows(r)) {
    for (const report::OpColumn& c : report::op_columns()) check_cell(c.get(op), c.json_key);
  }
}

void check_every_writer(const Report& r) {
  // Writers take no input errors: whatever they throw is a finding, the type named.
  try {
    check_sinks(r);
    check_charts(r);
  } catch (const std::exception& e) {
    fail(std::string("a writer threw: ") + e.what());
  }
}

void check_terminal_text(std::string_view what, std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\n' && u != '\t') || u == 0x7f) fail("a control character reaches the terminal in " + std::string(what), text);
  }
}

void check_no_inf_nan(std::string_view what, std::string_view text, std::string_view names) {
  std::string lower_names(names);
  for (char& c : lower_names) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string_view word : {"inf", "nan"}) {
    if (lower_names.find(word) != std::string::npos) continue;
    for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
      const bool starts = at == 0 || !std::isalpha(static_cast<unsigned char>(text[at - 1]));
      const bool ends = at + 3 == text.size() || !std::isalpha(static_cast<unsigned char>(text[at + 3]));
      if (starts && ends) fail("a number is not finite in " + std::string(what), text);
    }
  }
}

void check_explain(const std::string& model, const std::string& gpu, std::string_view names) {
  for (const char* lang : {"en", "zh"}) {
    const char* argv[] = {"rooflineplan", "explain", "-m", model.c_str(), "-g", gpu.c_str(), "--lang", lang};
    std::ostringstream out, err;
    int code = 0;
    try {
      code = cli::run(static_cast<int>(std::size(argv)), argv, out, err);
    } catch (const std::exception& e) {
      fail(std::string("explain threw: ") + e.what(), err.str());
    }
    if (code < 0 || code > 2) fail("explain exited " + std::to_string(code), err.str());
    check_terminal_text(std::string("explain --lang ") + lang, out.str());
    check_terminal_text(std::string("explain's errors --lang ") + lang, err.str());
    check_no_inf_nan(std::string("explain --lang ") + lang, out.str(), names);
  }
}

std::string scratch_file(std::string_view stem, std::string_view ext, std::string_view bytes) {
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path dir = tmp && *tmp ? tmp : "/tmp";
  const std::filesystem::path path =
      dir / (std::string(stem) + "-" + std::to_string(::getpid()) + std::string(ext));
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file.flush()) fail("cannot write the scratch file " + path.string());
  return path.string();
}

}  // namespace roofline::fuzz
