// Issue 24, one output contract: docs/outputs.md lists the columns the formats write, from the
// same tables. On a difference the generated list is written beside the test binary
// (outputs-NAME.md), ready to paste between the page's markers.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "cli/percentile_plan.hpp"
#include "cli/plan_command.hpp"
#include "cli/pools_plan.hpp"
#include "cli/simulate_columns.hpp"
#include "report/columns_markdown.hpp"
#include "cli_runner.hpp"

using namespace roofline;

namespace {

std::string section(const std::string& name) {
  const std::string all = test::read_text(ROOFLINEPLAN_DOCS "/outputs.md"), begin = "<!-- begin " + name + " -->\n", end = "<!-- end " + name + " -->";
  const auto from = all.find(begin), to = all.find(end);
  if (from == std::string::npos || to == std::string::npos) return "(no section " + name + " in docs/outputs.md)";
  return all.substr(from + begin.size(), to - from - begin.size());
}

void check_section(const std::string& name, const std::string& generated) {
  if (section(name) == generated) return;
  const std::string file = "outputs-" + name + ".md";
  std::ofstream(file) << generated;
  FAIL_CHECK("docs/outputs.md's `" << name << "` list differs from the tables'; theirs is in " << file);
}

}  // namespace

TEST_CASE("docs: outputs.md lists the columns the point, --ops, plan, --percentile, --pools and simulate write") {
  check_section("report columns", report::report_columns_markdown());
  check_section("op columns", report::op_columns_markdown());
  const auto plan = cli::plan_column_names();
  check_section("plan columns", report::names_markdown(plan));
  const auto percentile = cli::percentile_plan_column_names();
  check_section("percentile plan columns", report::names_markdown(percentile));
  const auto pools = cli::pool_plan_column_names();
  check_section("pools plan columns", report::names_markdown(pools));
  const auto simulate = cli::simulate_column_names();
  check_section("simulate columns", report::names_markdown(simulate));
}
