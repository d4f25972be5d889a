// Issue 24, tables that fit the terminal: `presets` was 370 columns wide. On a terminal a table's
// long text cells are cut (said under it) and the columns that still do not fit continue below,
// beside the first column again; a file or a pipe gets the whole table.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <sstream>

#include "cli_runner.hpp"
#include "report/terminal_width.hpp"
#include "report/text_table.hpp"
#include "text/utf8.hpp"

using namespace roofline;
using report::TextTable;

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TextTable plan_like() {
  TextTable t{"", {"gpu", "layout", "batch", "TPOT", "TTFT", "tok/s/replica", "replicas", "GPUs", "$/M tokens"}, {}};
  t.rows.push_back({"NVIDIA A100 80GB SXM", "tp 1", "133", "50.0 ms", "71.6 ms", "2660", "2", "2", "0.1234"});
  t.rows.push_back({"NVIDIA H100 SXM", "tp 1", "333", "49.9 ms", "44.2 ms", "6674", "1", "1", "0.0987"});
  return t;
}

}  // namespace

TEST_CASE("tables: without a width the table is drawn whole, as before") {
  const std::string whole = report::render_plain(plan_like());
  CHECK(whole == report::render_plain(plan_like(), 0));
  CHECK(lines_of(whole).size() == 4);  // header, rule, two rows: no note
}

TEST_CASE("tables: a plan wider than 60 columns wraps, every column kept and every line within 60") {
  const std::string text = report::render_plain(plan_like(), 60);
  for (const std::string& line : lines_of(text)) CHECK(text::display_width(line) <= 60);
  // Each header once but the first, which starts both parts; each figure still there.
  for (const std::string h : {"layout", "batch", "TPOT", "TTFT", "tok/s/replica", "replicas", "GPUs", "$/M tokens"}) {
    CHECK(text.find(h) != std::string::npos);
    CHECK(text.find(h) == text.rfind(h));
  }
  CHECK(text.find("0.1234") != std::string::npos);
  CHECK(text.find("NVIDIA A100 80GB SXM") != text.rfind("NVIDIA A100 80GB SXM"));  // the key, in both parts
  CHECK(text.find("cut") == std::string::npos);  // nothing cut: names of 20 columns are kept whole
}

TEST_CASE("tables: long text is cut with … and the cut is said under the table") {
  TextTable t{"", {"preset", "source"}, {}};
  t.rows.push_back({"qwen3-8b", "HF Qwen/Qwen3-8B config.json, bf16 as published (8.2 B), a long line of provenance"});
  const std::string text = report::render_plain(t, 50);
  for (const std::string& line : lines_of(text)) CHECK(text::display_width(line) <= 50);
  CHECK(text.find("HF Qwen/Qwen3-8B config.json, bf16 as…") != std::string::npos);
  CHECK(text.find("(… ends the cells cut to fit 50 columns)") != std::string::npos);
}

TEST_CASE("tables: a Chinese cell takes two columns a character when it is fitted") {
  TextTable t{"", {"项目", "说明"}, {{"单步耗时", std::string(40, 'x') + "访存受限访存受限访存受限"}}};
  for (const std::string& line : lines_of(report::render_plain(t, 48))) CHECK(text::display_width(line) <= 48);
}

TEST_CASE("tables: only standard output on a terminal is fitted, never a stream or a file") {
  std::ostringstream s;
  CHECK(report::table_width(s) == 0);
  // In-process, the command writes to a string: `presets` keeps every column whole.
  const auto r = test::run_cli({"presets"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("…") == std::string::npos);
}

TEST_CASE("tables: a terminal too narrow for more than the first column still shows every column") {
  // The Models table of presets at 44 columns: the first column and one more a table, the rest
  // wrapping below, each header shown.
  TextTable t{"Models", {"preset", "name", "params", "active", "KV/token", "source"}, {}};
  t.rows.push_back({"qwen3-235b-a22b", "Qwen3-235B-A22B", "235 B", "22.2 B", "96.3 kB",
                    "HF Qwen/Qwen3-235B-A22B config.json, bf16 as published"});
  const std::string text = report::render_plain(t, 44);
  for (const std::string h : {"name", "params", "active", "KV/token", "source"}) CHECK(text.find(h) != std::string::npos);
  CHECK(text.find("235 B") != std::string::npos);
}

TEST_CASE("tables: signed figures (+12.2%, -25.6%) align right as other numbers do") {
  // validate's "expected err", calibrate's "error" and fit's "bias" print a '+' before a figure
  // above zero; the column was read as text and drawn left-aligned.
  TextTable t{"", {"model", "err"}, {}};
  t.rows.push_back({"llama-2-7b", "+12.2%"});
  t.rows.push_back({"qwen3-8b", "+7.5%"});
  t.rows.push_back({"gemma-2b", "-25.6%"});
  t.rows.push_back({"mistral-7b", "3.0%"});
  const std::vector<std::string> lines = lines_of(report::render_plain(t));
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "  model          err");
  CHECK(lines[1] == "  ------------------");
  CHECK(lines[2] == "  llama-2-7b  +12.2%");
  CHECK(lines[3] == "  qwen3-8b     +7.5%");
  CHECK(lines[4] == "  gemma-2b    -25.6%");
  CHECK(lines[5] == "  mistral-7b    3.0%");
}

TEST_CASE("tables: a row streamed after the layout draws a wider cell whole, pushing its row right") {
  // A sweep lays its columns out from its first 1,000 rows: a later "16.9 min" under "143 ms" was
  // drawn "16.9 …" and a longer model name cut to a prefix the rows shared, with no note. Only a
  // column narrowed to fit a terminal cuts its cells.
  const TextTable window{"", {"model", "TTFT"}, {{"Llama-3.1-8B", "143 ms"}}};
  const report::PlainLayout layout = report::plain_layout(window);
  std::string out;
  report::append_plain_row(out, layout, {"Llama, \"quoted\" | pipe", "16.9 min"});
  report::append_plain_row(out, layout, {"Llama-3.1-8B", "50.1 ms"});
  CHECK(out == "  Llama, \"quoted\" | pipe  16.9 min\n  Llama-3.1-8B  50.1 ms\n");
}

TEST_CASE("tables: on a terminal, a streamed row's cell is cut only in the column narrowed to fit it") {
  TextTable t{"", {"preset", "source"}, {}};
  t.rows.push_back({"qwen3-8b", "HF Qwen/Qwen3-8B config.json, bf16 as published (8.2 B), a long line of provenance"});
  const report::PlainLayout layout = report::plain_layout(t, 50);
  REQUIRE(layout.narrowed == std::vector<bool>{false, true});
  std::string out;
  report::append_plain_row(out, layout, {"llama-3.1-8b-instruct", "HF meta-llama/Llama-3.1-8B-Instruct config.json, bf16"});
  CHECK(out == "  llama-3.1-8b-instruct  HF meta-llama/Llama-3.1-8B-Instruct c…\n");
}

TEST_CASE("tables: a sweep past its first 1,000 rows, to a file, cuts no figure and no name") {
  // The second model's name is longer than any in the first 1,000 rows, and a 100000-token
  // prompt's TTFT ("16.9 min" at batch 29, as the point command prints it) wider than a 1-token one's.
  std::string yaml = test::read_text(std::string(ROOFLINEPLAN_SOURCE) + "/presets/models/llama-3.1-8b.yaml");
  REQUIRE(yaml.rfind("name: ", 0) == 0);
  yaml = "name: 'Llama, \"quoted\" | pipe'" + yaml.substr(yaml.find('\n'));
  test::write_temp("quoted-name.yaml", yaml);
  const auto r = test::run_cli({"sweep", "-m", "llama-3.1-8b," + test::temp_file("quoted-name.yaml"), "-g", "l4", "-b",
                                "1..1001", "-p", "1,100000", "-f", "table"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("…") == std::string::npos);
  int long_prompt_rows = 0;
  for (const std::string& line : lines_of(r.out)) {
    if (line.find("        29  100000") == std::string::npos) continue;
    ++long_prompt_rows;
    CHECK_THAT(line, Catch::Contains("16.9 min"));
  }
  CHECK(long_prompt_rows == 2);
  CHECK_THAT(r.out, Catch::Contains("\n  Llama, \"quoted\" | pipe  NVIDIA L4  "));
}
