// libFuzzer target: the workload flags and their value lists, through the commands that take
// them (the point command, sweep, plan, plot, explain and simulate), run in-process as a user
// would type them. The input chooses a command, flags among the workload flags and the command's own, and
// each value from the flag's own words, the extreme numbers (fuzz/extreme.dict) or raw bytes.
// The command must exit 0, 1 or 2 without an exception escaping, print finite numbers and JSON
// that parses back, fail when its output cannot be written, and refuse what it cannot do.
// calibrate and validate are left out: they measure the machine.
#include <fuzzer/FuzzedDataProvider.h>

#include <nlohmann/json.hpp>
#include <tinyxml2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "cli/app.hpp"
#include "cli/serve_flags.hpp"
#include "cli/sweep_command.hpp"
#include "cli/value_lists.hpp"
#include "every_writer.hpp"
#include "io/input_error.hpp"

namespace {

using Words = std::vector<std::string>;

// Sweeps and plans run only while this small: the fuzzer needs an answer in milliseconds. A
// sweep the tool must refuse (more than kMaxSweepPoints, counted here without wrapping) runs
// too, and must be refused before its first point.
constexpr double kMaxRunPoints = 64;
// A simulation runs only while its steps, counted at the worst (one request a step, each output
// token a step, the lengths' far tail), stay this few.
constexpr double kMaxSimulatedSteps = 20'000;

const Words kExtreme = {"4.9e-324", "2.2250738585072014e-308", "1e308", "1e-300", "9223372036854775807",
                        "9223372036854775808", "-9223372036854775808", "18446744073709551617", "4294967297",
                        "4294967298", "2147483648", "-0", "-1", "0", "nan", "inf", "-inf", "1e99999", "0x10", "1e8",
                        " GB/s", " TFLOPS", "1e-300 GB/s", "4.9e-324 s", "\xe9", "\x1b[2J", "=cmd", "---", "[[[[", ""};

struct Flag {
  std::string_view name;
  Words words;
};

const Words kCounts = {"1", "2", "8", "64", "512", "4096", "32768", "131072", "1..8", "1..1024:x2", "128..1024:+128",
                       "1..1000000000:x2", "1..100000", "0..9223372036854775807:x2", "1..9223372036854775807:+4611686018427387904"};
const Words kDtypes = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4", "fp4", "fp16,int4", "FP16", "int3"};

std::vector<Flag> workload_flags(const Words& specs) {
  return {
      {"--model", specs},
      {"--gpu", specs},
      {"--batch", kCounts},
      {"--prompt", kCounts},
      {"--gen", kCounts},
      {"--context", kCounts},
      {"--tp", {"1", "2", "4", "8", "1,2,4,8", "3", "1..8:x2"}},
      {"--group-size", {"32", "64", "128", "1", "7", "0"}},
      {"--weights", kDtypes},
      {"--kv", kDtypes},
      {"--activations", kDtypes},
      {"--compute", kDtypes},
      {"--attention", {"flash", "naive", "flash,naive"}},
      {"--reserve", {"0", "0.1", "0.5", "0.99", "1", "2", "0.1,0.2"}},
  };
}

std::vector<Flag> own_flags(std::string_view command, const std::string& svg) {
  const Words formats = {"table", "markdown", "csv", "json", "jsonl"};
  if (command == "plan") {
    return {{"--price", {"2", "0", "-1", "1e300", "2,3", "2.5"}},
            {"--rate", {"1", "10", "1000", "1e300", "1e-300", "0"}},
            {"--ttft", {"1 s", "50 ms", "4.9e-324 s", "1e300 s", "0 s", "1 TB"}},
            {"--tpot", {"50 ms", "1 ms", "1 us", "1e300 s", "1 GB/s"}},
            {"--disaggregate", {}},
            {"--emit", {"vllm", "sglang", "trtllm", "ollama"}},
            {"--emit-dir", {svg + "-launch"}},
            {"--format", formats}};
  }
  if (command == "plot") return {{"--kind", {"roofline", "batch", "context"}}, {"--out", {svg}}};
  if (command == "explain") {
    return {{"--lang", {"en", "zh"}}, {"--scenario", {"summarize", "chat"}}, {"--plot", {svg}}};
  }
  if (command == "sweep") return {};
  if (command == "simulate") {
    const Words lengths = {"1", "16", "200", "lognormal:64:0.5", "lognormal:1:5", "uniform:1:300", "uniform:9:3",
                           "lognormal:0:1", "normal:5:1", "1000000000"};
    return {{"--rate", {"1", "20", "0.01", "1e6", "0", "-1"}},
            {"--arrivals", {"poisson", "gamma:4", "gamma:0", "gamma:1e300", ROOFLINEPLAN_SOURCE_DIR "/tests/data/traces/small.csv",
                            ROOFLINEPLAN_SOURCE_DIR "/tests/data/traces/bad_cell.csv", "weibull"}},
            {"--prompt", lengths},
            {"--gen", lengths},
            {"--duration", {"10s", "1 s", "100 ms", "0 s", "1e300 s", "10"}},
            {"--max-batch", {"1", "4", "256", "0", "9223372036854775807"}},
            {"--max-batched-tokens", {"1", "16", "8192", "0"}},
            {"--chunked-prefill", {}},
            {"--block-tokens", {"1", "16", "4096", "0"}},
            {"--prefix-hit", {"0", "0.5", "1", "1.5"}},
            {"--seed", {"1", "0", "-1", "18446744073709551617"}},
            {"--ttft", {"1 s", "0 s", "1 TB"}},
            {"--tpot", {"50 ms", "1e-300 s"}},
            {"--ep", {"1", "2", "8", "3"}},
            {"--speculative", {"4:0.7", "1:0.85:mtp", "2:0.5:llama-2-7b", "0:1", "65:0.5", "3:0.5:/dev/zero", "4:nan"}},
            {"--plot", {svg}},
            {"--format", {"table", "json", "csv"}}};
  }
  return {{"--ops", {}}, {"--format", formats}};
}

// An output whose every write fails, as stdout on a full disk.
class FullBuffer final : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

std::string value(FuzzedDataProvider& in, const Words& words) {
  auto pick = [&in](const Words& from) { return from.empty() ? std::string() : from[in.ConsumeIntegralInRange<std::size_t>(0, from.size() - 1)]; };
  switch (in.ConsumeIntegralInRange(0, 4)) {
    case 0:
    case 1: return pick(words);
    case 2: return pick(kExtreme);
    case 3: return pick(words) + "," + pick(kExtreme);
    default: return in.ConsumeRandomLengthString(24);
  }
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1) out.push_back(text.substr(start, comma - start));
  out.push_back(text.substr(start));
  return out;
}

// The points a sweep or plan would walk, counted without wrapping; nullopt where a list is one
// the tool refuses (it will say so without walking anything).
std::optional<double> points(const std::vector<std::pair<std::string, std::string>>& flags) {
  double product = 1;
  for (const std::string_view name : {"--model", "--gpu", "--batch", "--prompt", "--gen", "--context", "--tp", "--pp", "--ep",
                                      "--group-size", "--weights", "--kv", "--activations", "--compute", "--attention",
                                      "--reserve"}) {
    std::vector<std::string> items;
    for (const auto& [flag, v] : flags) {
      if (flag == name) {
        for (std::string& item : split(v)) items.push_back(std::move(item));
      }
    }
    if (items.empty()) continue;
    const bool counts = name == "--batch" || name == "--prompt" || name == "--gen" || name == "--context" || name == "--tp" ||
                        name == "--pp" || name == "--ep" || name == "--group-size";
    try {
      product *= static_cast<double>(counts ? roofline::cli::expand_counts(items, name.substr(2)).size() : items.size());
    } catch (const roofline::io::InputError&) {
      return std::nullopt;
    }
  }
  return product;
}

std::optional<long> whole(const std::string& text) {
  long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// The single value of a flag given once as a plain number; nullopt otherwise.
std::optional<long> single(const std::vector<std::pair<std::string, std::string>>& flags, std::string_view name, std::optional<long> fallback) {
  std::optional<long> found = fallback;
  int times = 0;
  for (const auto& [flag, v] : flags) {
    if (flag == name) ++times, found = whole(v);
  }
  return times > 1 ? std::nullopt : found;
}

void check_svg_file(const std::string& path) {
  tinyxml2::XMLDocument xml;
  if (std::filesystem::exists(path) && xml.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) {
    roofline::fuzz::fail(std::string("the SVG written is not well-formed XML: ") + xml.ErrorStr());
  }
}

// One run of the tool: a command, flags with their values, and whether stdout is full.
struct Invocation {
  std::string command;  // empty: the point command
  bool full_output = false;
  std::vector<std::pair<std::string, std::string>> flags;  // value "" for --ops, --disaggregate
};

bool takes_no_value(std::string_view flag) {
  return flag == "--ops" || flag == "--disaggregate" || flag == "--chunked-prefill";
}

// The most tokens a request of this length flag draws, far in a log-normal's tail (e^(5 sigma):
// one request in 3.5 million beyond it); nullopt where the tool refuses the flag.
std::optional<double> longest(const std::string& flag_value, std::string_view flag) {
  try {
    const roofline::serve::LengthDistribution d = roofline::cli::length_flag(flag_value, flag);
    using Kind = roofline::serve::LengthDistribution::Kind;
    return d.kind == Kind::fixed ? d.a : d.kind == Kind::uniform ? d.b : d.a * std::exp(5 * d.b);
  } catch (const roofline::io::InputError&) {
    return std::nullopt;
  }
}

// The steps a simulation could take at the worst, for the flags as given (nullopt where the
// tool refuses one of them before simulating); a trace holds a handful of short requests.
std::optional<double> simulated_steps(const std::vector<std::pair<std::string, std::string>>& flags) {
  std::string rate, duration = "3600s", prompt, gen, arrivals = "poisson";
  for (const auto& [flag, v] : flags) {
    for (auto [name, into] : {std::pair<std::string_view, std::string*>{"--rate", &rate}, {"--duration", &duration},
                              {"--prompt", &prompt}, {"--gen", &gen}, {"--arrivals", &arrivals}}) {
      if (flag == name) *into = v;
    }
  }
  if (arrivals.ends_with(".csv")) return 100;
  double r = 0, seconds = 0;
  try {
    r = std::stod(rate);
    seconds = roofline::cli::quantity_flag(duration, roofline::io::Dimension::time, "duration");
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // Past 10^7 requests (cli/serve_flags.cpp's kMaxRequests) the tool refuses before it draws
  // one: such a run is cheap, and it is the size limit the fuzzer holds the tool to.
  if (r * seconds > 1e7) return 100;
  const std::optional<double> in = longest(prompt, "prompt"), out = longest(gen, "gen");
  if (!in || !out || !(r > 0) || !(seconds > 0)) return std::nullopt;
  return r * seconds * 1.5 * (*out + *in) + 100;
}

// A regression input is readable: "#argv" on its first line, then the command (or "point") and
// one argument a line, with $SRC for the source tree and $SECRET for the file an error must not
// echo; "--full-output" makes every write to stdout fail. The fuzzer mutates these as text too.
std::optional<Invocation> from_text(std::string_view text, const std::string& secret) {
  constexpr std::string_view kHeader = "#argv\n";
  if (!text.starts_with(kHeader)) return std::nullopt;
  std::vector<std::string> lines;
  for (std::size_t at = kHeader.size(); at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string line(text.substr(at, end - at));
    for (const auto& [from, to] : {std::pair<std::string_view, std::string_view>{"$SRC", ROOFLINEPLAN_SOURCE_DIR}, {"$SECRET", secret}}) {
      for (std::size_t p; (p = line.find(from)) != std::string::npos;) line.replace(p, from.size(), to);
    }
    lines.push_back(std::move(line));
    at = end + 1;
  }
  Invocation run;
  if (!lines.empty()) run.command = lines.front() == "point" ? "" : lines.front();
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i] == "--full-output") {
      run.full_output = true;
    } else if (takes_no_value(lines[i]) || i + 1 == lines.size()) {
      run.flags.emplace_back(lines[i], "");
    } else {
      run.flags.emplace_back(lines[i], lines[i + 1]);
      ++i;
    }
  }
  return run;
}

Invocation from_bytes(FuzzedDataProvider& in, const Words& specs, const std::vector<Flag>& workload, const std::string& svg) {
  constexpr std::array<std::string_view, 6> kCommands = {"", "sweep", "plan", "plot", "explain", "simulate"};
  Invocation run;
  run.command = kCommands[in.ConsumeIntegralInRange<std::size_t>(0, kCommands.size() - 1)];
  run.full_output = in.ConsumeIntegralInRange(0, 7) == 0;
  const std::vector<Flag> own = own_flags(run.command, svg);
  // Usually a model and a GPU, so that the command gets as far as its values.
  if (in.ConsumeIntegralInRange(0, 7) != 0) run.flags.emplace_back("--model", value(in, specs));
  if (in.ConsumeIntegralInRange(0, 7) != 0) run.flags.emplace_back("--gpu", value(in, specs));
  for (int n = in.ConsumeIntegralInRange(0, 8); n > 0 && in.remaining_bytes() > 0; --n) {
    const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, workload.size() + own.size() - 1);
    const Flag& f = i < workload.size() ? workload[i] : own[i - workload.size()];
    run.flags.emplace_back(std::string(f.name), f.words.empty() ? std::string() : value(in, f.words));
  }
  return run;
}

// Whether these arguments can only write the scratch SVG and never measure the machine: the
// fuzzer may spell a flag anywhere (`--out=x`, `-ox`, a value that looks like a flag).
bool harmless(const std::vector<std::string>& args, const std::string& svg) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "calibrate" || a == "validate") return false;
    if (a == "--out" || a == "--plot" || a == "-o") {
      if (i + 1 == args.size() || args[i + 1] != svg) return false;
      ++i;
    } else if (a.starts_with("--out") || a.starts_with("--plot") ||
               (a.size() > 1 && a[0] == '-' && a[1] != '-' && a.find('o') != std::string::npos)) {
      return false;  // --out=x, or -o in a cluster of short flags
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofline;
  static const std::string svg = fuzz::scratch_file("fuzz-workload", ".svg", "");
  // A file whose lines an error must not echo, as /etc/shadow's.
  static const std::string secret = fuzz::scratch_file("fuzz-secret", ".yaml", "root:$6$SECRETHASH$x:19000:0:99999:7:::\n");
  static const Words specs = {"llama-2-7b", "mixtral-8x7b", "deepseek-v3", "a100-80gb", "h100-sxm", "h200",
                              ROOFLINEPLAN_SOURCE_DIR "/examples/7b.yaml",
                              ROOFLINEPLAN_SOURCE_DIR "/presets/gpus/a100-80gb.yaml", secret, "/dev/zero", "/dev/null", "no-such-preset"};
  static const std::vector<Flag> workload = workload_flags(specs);

  FuzzedDataProvider in(data, size);
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Invocation run = from_text(bytes, secret).value_or(Invocation{});
  if (!bytes.starts_with("#argv\n")) run = from_bytes(in, specs, workload, svg);
  const std::string& command = run.command;
  auto& flags = run.flags;
  const bool full_output = run.full_output;
  // A file written is always the scratch SVG: a fuzzed path could land anywhere. A value is what
  // argv can carry: a C string ends at its first NUL, so count the points of what the tool sees.
  for (auto& [flag, v] : flags) {
    if (flag == "--out" || flag == "--plot" || flag == "-o") v = svg;
    v = v.substr(0, v.find('\0'));
  }
  if (command == "sweep") flags.emplace_back("--format", "csv");

  const bool many = command == "sweep" || command == "plan";
  const std::optional<double> n = many ? points(flags) : std::nullopt;
  const bool refused_for_size = command == "sweep" && n && *n > static_cast<double>(cli::kMaxSweepPoints);
  if (many && n && *n > kMaxRunPoints && !refused_for_size) return 0;
  if (command == "simulate") {
    const std::optional<double> steps = simulated_steps(flags);
    if (steps && *steps > kMaxSimulatedSteps) return 0;
  }

  std::vector<std::string> args{"rooflineplan"};
  if (!command.empty()) args.push_back(command);
  std::string format = command == "sweep" ? "csv" : command == "plan" || command == "simulate" || command.empty() ? "table" : "";
  for (const auto& [flag, v] : flags) {
    if (flag == "--format") format = v;
    args.push_back(flag);
    if (!takes_no_value(flag)) args.push_back(v);
  }
  // Launch scripts go beside the figure, never into the folder the fuzzer runs in.
  if (std::find(args.begin(), args.end(), "--emit") != args.end() &&
      std::find(args.begin(), args.end(), "--emit-dir") == args.end()) {
    args.insert(args.end(), {"--emit-dir", svg + "-launch"});
  }
  if (!harmless(args, svg)) return 0;
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::filesystem::remove(svg);

  FullBuffer full;
  std::ostringstream text, err;
  std::ostream out(full_output ? static_cast<std::streambuf*>(&full) : text.rdbuf());
  int code = 0;
  try {
    code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  } catch (const std::exception& e) {
    fuzz::fail(std::string("an exception escaped the command: ") + e.what(), err.str());
  }
  if (code < 0 || code > 2) fuzz::fail("exit code " + std::to_string(code), err.str());
  if (err.str().find("SECRETHASH") != std::string::npos) fuzz::fail("an error echoes the contents of a file", err.str());
  if (refused_for_size && code == 0) fuzz::fail("a sweep beyond the point limit ran", err.str());
  if (full_output && code == 0) fuzz::fail("exit 0 though every write to the output failed", err.str());
  if (code == 0 && (command.empty() || command == "plot")) {
    const std::optional<long> prompt = single(flags, "--prompt", 512), context = single(flags, "--context", std::nullopt);
    if (prompt && context && *context < *prompt) fuzz::fail("--context below --prompt accepted", err.str());
  }
  if (full_output) return 0;

  const std::string printed = text.str();
  // A help flag the fuzzer spelled anywhere (`-h-`) prints the command's help, not its format; so
  // does --version print its one line (`rooflineplan --version --format json`), as CLI11 does.
  const bool help = printed.find("\nUsage: ") != std::string::npos || printed.starts_with("Usage: ") ||
                    printed == "rooflineplan " ROOFLINEPLAN_VERSION "\n";
  if ((format == "json" || format == "jsonl") && !help) {
    std::size_t start = 0;
    while (code == 0 && start < printed.size()) {
      const std::size_t end = format == "json" ? std::string::npos : printed.find('\n', start);
      try {
        (void)nlohmann::json::parse(printed.substr(start, end == std::string::npos ? end : end - start));
      } catch (const nlohmann::json::exception& e) {
        fuzz::fail(std::string("JSON does not parse back: ") + e.what(), printed);
      }
      if (end == std::string::npos) break;
      start = end + 1;
    }
  } else if (format != "csv") {
    fuzz::check_terminal_text("the output", printed);
  }
  // The names here are the presets' and the example's, which hold neither word.
  fuzz::check_no_inf_nan("the output", printed, "");
  if (code == 0) check_svg_file(svg);
  return 0;
}
