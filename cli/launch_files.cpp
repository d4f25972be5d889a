#include "cli/launch_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <system_error>

#include "cli/atomic_file.hpp"
#include "io/input_error.hpp"
#include "io/text_file.hpp"
#include "launch/launch_spec.hpp"
#include "model/engine.hpp"
#include "report/human_units.hpp"
#include "report/layout_label.hpp"
#include "report/safe_text.hpp"
#include "report/warning_text.hpp"
#include "serve/engine_defaults.hpp"

namespace fs = std::filesystem;

namespace roofline::cli {

namespace {

std::string row_text(const LaunchRow& r) {
  const CapacityPlan& p = *r.plan;
  return fmt::format("{} with {}, batch {}, TPOT {}, TTFT {}, {} replica{}, sized on {}", r.gpu->name,
                     report::layout_label(r.layout), p.batch, report::human(p.tpot), report::human(p.ttft), p.replicas,
                     p.replicas == 1 ? "" : "s", r.sized_on);
}

// How every launch file rooflineplan writes begins (launch/launch_script.cpp, render): the mark
// that a file in --emit-dir named like one is an earlier plan's, for this plan to remove.
constexpr std::string_view kShebang = "#!/usr/bin/env bash\n", kWrittenBy = "# rooflineplan plan, row";

bool written_by_rooflineplan(const fs::path& p) {
  const std::string mark = fmt::format("{}{} ", kShebang, kWrittenBy);
  std::ifstream in(p, std::ios::binary);
  std::string head(mark.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return in && head == mark;
}

}  // namespace

void write_launch_files(launch::Engine engine, const std::string& dir, const ModelSpec& m, std::string_view model_arg,
                        const std::vector<LaunchRow>& rows, std::ostream& err) {
  std::error_code ec;
  const bool from_file = fs::is_regular_file(std::string(model_arg), ec);
  struct Ready {
    launch::LaunchSpec spec;
    std::string gpu;
  };
  std::vector<Ready> ready;
  struct Refused {
    std::string row;  // "row 3 (NVIDIA H100 SXM with tp 8 ep 2)"
    std::string why;  // "--ep: …"
  };
  std::vector<Refused> refused;
  int rank = 0;
  for (const LaunchRow& r : rows) {
    ++rank;
    if (!r.plan->feasible) continue;
    Workload at = r.layout;
    at.batch = r.plan->batch;
    at.context_tokens = default_context(at.prompt_tokens, at.gen_tokens);
    // The plan's steady state holds one step's activations, not a whole batch of prompts'.
    MemoryLedger ledger = evaluate(m, *r.gpu, at).memory;
    ledger.activations = r.plan->step_activations;
    launch::LaunchSpec spec =
        launch::launch_spec(m, model_arg, from_file, *r.gpu, at, *r.plan, ledger, rank, row_text(r));
    // SGLang's CUDA graph limit left to its default, from the one table of it (serve/engine_defaults).
    spec.sglang_cuda_graph_default = serve::sglang_cuda_graph_max_bs(r.gpu->memory_capacity.value() / 1048576.0, at.tp);
    if (const auto why = launch::refusal(engine, spec)) {
      refused.push_back({fmt::format("row {} ({} with {})", rank, r.gpu->name, report::layout_label(r.layout)), *why});
      continue;
    }
    ready.push_back({std::move(spec), r.gpu->name});
  }
  if (ready.empty()) {
    // The request came from --emit: the engine's refusal names the plan's flag to change (`--kv:`,
    // `--weights or --kv:`), after the one that asked, as simulate says it after --engine's.
    if (!refused.empty()) throw io::InputError(fmt::format("--emit {}: {}", launch::name(engine), refused.front().why));
    throw io::InputError("--emit: no row meets the targets, so there is nothing to launch");
  }
  fs::create_directories(dir, ec);
  if (ec) throw io::InputError(fmt::format("--emit-dir {}: cannot create the folder: {}", dir, ec.message()));
  // This plan's scripts, rendered before the folder changes: their names are checked below.
  std::vector<launch::LaunchFile> files;
  for (const Ready& r : ready) files.push_back(launch::write_launch(engine, r.spec, r.gpu));
  const auto this_plans = [&](const std::string& name) {
    return std::any_of(files.begin(), files.end(), [&](const launch::LaunchFile& f) { return f.name == name; });
  };
  // An earlier plan's scripts for this engine would be started beside this one's by `for f in
  // dir/*.sh`: they go, and are counted. A name alone is not enough: it took a user's own
  // 00-vllm-env.sh, and the model file of the very plan when named like one. So a match that is
  // one of this command's inputs is refused, one rooflineplan did not write (its head) stays, and
  // every match is judged before any is removed.
  const std::regex ours(fmt::format(R"(\d\d+-{}-.*\.sh)", launch::name(engine)));
  std::vector<fs::path> earlier;
  std::vector<std::string> kept;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !std::regex_match(name, ours)) continue;
    if (const auto input = io::read_as(e.path().string())) {
      throw io::InputError(fmt::format("--emit-dir {}: {} is one of this command's inputs (read as {}), named like a "
                                       "launch file for {} (NN-{}-*.sh); move it or name another folder",
                                       dir, name, *input, launch::name(engine), launch::name(engine)));
    }
    if (written_by_rooflineplan(e.path())) {
      earlier.push_back(e.path());
    } else if (this_plans(name)) {
      throw io::InputError(fmt::format("--emit-dir {}: {} is not a launch file rooflineplan wrote (no `{}` line at its "
                                       "head), and this plan's would replace it; move it or name another folder",
                                       dir, name, kWrittenBy));
    } else {
      kept.push_back(name);
    }
  }
  int removed = 0;
  for (const fs::path& p : earlier) removed += fs::remove(p, ec) ? 1 : 0;
  if (removed > 0) {
    err << fmt::format("note: --emit-dir {}: removed {} launch file{} of an earlier plan for {}\n", dir, removed,
                       removed == 1 ? "" : "s", launch::name(engine));
  }
  if (!kept.empty()) {
    std::sort(kept.begin(), kept.end());
    err << report::terminal_text(fmt::format(
               "note: --emit-dir {}: left {} in place: named like a launch file for {}, but not one rooflineplan "
               "wrote (no `{}` line at its head); `for f in {}/*.sh` starts {} beside this plan's",
               dir, fmt::join(kept, ", "), launch::name(engine), kWrittenBy, dir,
               kept.size() == 1 ? "it" : "them"))
        << "\n";
  }
  // Named after the engine that refused, as the refusal of every row is (`--emit trtllm: …`).
  for (const Refused& r : refused) {
    const std::string said = fmt::format("--emit {}: no launch file for {}: {}", launch::name(engine), r.row, r.why);
    err << report::warning_label() << report::terminal_text(said) << "\n";
  }
  std::vector<std::string> names;
  for (const launch::LaunchFile& file : files) {
    const std::string path = (fs::path(dir) / file.name).string();
    AtomicFile out(path, "--emit-dir");
    out.stream() << file.text;
    out.commit();
    // A script to run: executable by whoever may read it.
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    for (const std::string& w : file.warnings) {
      err << report::warning_label() << report::terminal_text(fmt::format("{}: {}", file.name, w)) << "\n";
    }
    names.push_back(file.name);
  }
  err << fmt::format("wrote {} launch file{} for {} to {}: {}\n", names.size(), names.size() == 1 ? "" : "s",
                     launch::name(engine), dir, fmt::join(names, ", "));
  // The scripts set the engine's memory share from the plan's --reserve, where the engine's own
  // default would size its cache otherwise: simulate runs what they set when given that --reserve.
  const double reserve = ready.front().spec.reserve;
  err << fmt::format("note: the launch files set {}'s memory share from the plan's --reserve {:g}: `simulate --engine "
                     "{} --reserve {:g}` runs the KV cache they set, given their batch and token budget as --max-batch "
                     "and --max-batched-tokens (without --reserve, simulate takes the engine's own default memory "
                     "rule, which their flag replaces: docs/engines.md)\n",
                     launch::name(engine), reserve, launch::name(engine), reserve);
}

}  // namespace roofline::cli
