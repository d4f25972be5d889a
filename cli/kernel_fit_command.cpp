// `rooflineplan fit --kernels TABLE.csv…`: the kernel classes' coefficients fitted to kernels
// measured on real GPUs, each class's residuals in-sample and with each GPU held out, and (--out)
// the GPU YAML's `expected.kernels:` block.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string>
#include <string_view>
#include <filesystem>
#include <memory>
#include <map>
#include <optional>
#include <utility>

#include "cli/atomic_file.hpp"
#include "cli/fit_command.hpp"
#include "io/gpu_writer.hpp"
#include "io/input_error.hpp"
#include "io/kernel_table.hpp"
#include "io/spec_loader.hpp"
#include "model/kernel_fit.hpp"
#include "report/run_envelope.hpp"
#include "report/safe_text.hpp"
#include "report/terminal_width.hpp"
#include "report/text_table.hpp"
#include "report/write_error.hpp"

namespace roofline::cli {

namespace {

// The GPU a table's file name starts with, as the tables in ../shared/gpu-kernels/ name them.
const std::map<std::string, std::string, std::less<>> kGpuOfPrefix = {
    {"a100", "a100-80gb"}, {"h100", "h100-sxm"}, {"h200", "h200"}};

struct Gpu {
  std::string name;  // the preset or file; " (fp32)" after it for float32 GEMM tables
  KernelCeilings ceilings;
  bool fp32 = false;
};

// `fp32`: a CPU's float32 GEMMs (calibrate --kernel-table), against its fp32 peak.
KernelCeilings ceilings_of(const GpuSpec& g, bool fp32) {
  KernelCeilings c;
  const auto sixteen = fp32                           ? g.datasheet_peak(DType::fp32)
                       : g.datasheet_peak(DType::bf16) ? g.datasheet_peak(DType::bf16)
                                                       : g.datasheet_peak(DType::fp16);
  c.peak = sixteen ? sixteen->value() : 0;
  c.peak_fp8 = g.datasheet_peak(DType::fp8) ? g.datasheet_peak(DType::fp8)->value() : 0;
  c.bandwidth = g.memory_bandwidth.value();
  c.link = g.interconnect ? g.interconnect->bandwidth.value() : 0;
  return c;
}

// What a class needs of the GPU's description, checked before a fit divides by it.
void require_ceilings(const io::KernelTable& t, const Gpu& g) {
  for (const io::KernelSample& s : t.samples) {
    const KernelClass k = s.klass;
    const bool collective = k == KernelClass::all_reduce || k == KernelClass::nccl_all_reduce;
    std::string_view lacking = collective && g.ceilings.link <= 0                  ? "`interconnect:`"
                               : on_fp8_peak(k) && g.ceilings.peak_fp8 <= 0 ? "fp8 peak"
                               : !collective && g.ceilings.peak <= 0              ? (g.fp32 ? "fp32 peak" : "bf16 or fp16 peak")
                                                                                   : "";
    if (!lacking.empty()) {
      throw io::InputError(fmt::format("{}:{}: the GPU `{}` has no {} to measure {} kernels against (--gpu names the GPU they ran on)", t.path,
                                       s.line, g.name, lacking, name(k)));
    }
  }
}

// A kernel this much faster than its roofline on the GPU it was fitted against is no measurement:
// a unit, a typo, or another GPU's table. The tables' fastest is 0.698 of its bound (a GEMM whose
// activations stayed in L2 between timed runs; every class's least is in docs/expected-
// performance.md), and no cache serves 10 times the DRAM bandwidth or the peak 10 times over.
constexpr double kLeastOverBound = 0.1;

// Each kernel's time against its roofline on `g`: one below a tenth of it refused at its row.
// `named_gpu`: --gpu gave the GPU (which may not be the one the table ran on).
void require_physical(const io::KernelTable& t, const Gpu& g, bool named_gpu) {
  for (const io::KernelSample& s : t.samples) {
    const double bound = roofline_seconds({s.klass, s.ask, s.seconds, 0}, g.ceilings);
    if (!(s.seconds < kLeastOverBound * bound)) continue;
    throw io::InputError(fmt::format("{}:{}: column `{}`: {:.3g} us is {:.2g} of the {} kernel's roofline on `{}` ({:.3g} us: "
                                     "its FLOPs at the datasheet peak or its bytes at the bandwidth, the longer): no "
                                     "kernel runs 10 times faster than its GPU's ceilings (a unit or a typo{})",
                                     t.path, s.line, s.column, s.seconds * 1e6, s.seconds / bound, name(s.klass), g.name,
                                     bound * 1e6, named_gpu ? ", or --gpu is not the GPU it ran on" : ""));
  }
}

// --gpu against the GPU a table's file name gives (`prefix`: h100 of h100_sxm_gemm.csv, the preset
// `preset`): a table fitted against another GPU's ceilings has its kernels faster or slower than
// their bound by the two GPUs' ratio (H200 GEMMs against the H100's 3.35 TB/s: 54 of 300 below it)
// and the block written names the wrong GPU's own tables. So --gpu must describe the table's GPU:
// its 16-bit peak and bandwidth within 2% of the preset's (a copy of it under a name of the user's
// is taken; an H100 PCIe's 2.0 TB/s against an h100_sxm table is not, nor any name's other GPU).
void require_same_gpu(const std::string& path, std::string_view prefix, std::string_view preset, const std::string& flag,
                      const GpuSpec& spec) {
  const Ceilings theirs = io::load_gpu(std::string(preset)).ceilings(DType::bf16), ours = spec.ceilings(DType::bf16);
  const auto near = [](double a, double b) { return std::abs(a - b) <= 0.02 * std::max(a, b); };
  if (near(theirs.peak.value(), ours.peak.value()) && near(theirs.bandwidth.value(), ours.bandwidth.value())) return;
  throw io::InputError(fmt::format("{}: --gpu: the file's name says its kernels ran on `{}` ({}_), and --gpu names `{}` "
                                   "({}): its kernels would be fitted against that GPU's ceilings and written as its own; drop "
                                   "--gpu (each table's GPU is then its name's) or split the run (one fit --kernels for "
                                   "this GPU's tables, another with --gpu for the rest); --gpu's 16-bit peak and bandwidth "
                                   "{:.4g} TFLOP/s and {:.4g} TB/s, the table's GPU's {:.4g} and {:.4g}",
                                   path, preset, prefix, flag, spec.name, ours.peak.value() / 1e12,
                                   ours.bandwidth.value() / 1e12, theirs.peak.value() / 1e12, theirs.bandwidth.value() / 1e12));
}

std::string fixed3(double v) { return fmt::format("{:.3f}", v); }

std::string coefficient_text(const ClassCoefficient& c) {
  return c.time ? fmt::format("{}={:.3g} us", c.key, *c.value * 1e6) : fmt::format("{}={:.3g}", c.key, *c.value);
}

std::string coefficients_text(KernelClass k, KernelCoefficients c) {
  std::string out;
  for (const ClassCoefficient& x : coefficients_of(k, c)) out += (out.empty() ? "" : ", ") + coefficient_text(x);
  return out;
}

// The coefficients of a class's fit left at a bound: "per_sequence=0.001 us (lowest)", and their keys.
std::vector<std::string> at_bounds(KernelClass k, KernelCoefficients c, bool keys_only) {
  std::vector<std::string> out;
  for (const ClassCoefficient& x : coefficients_of(k, c)) {
    const std::string_view edge = at_bound(x);
    if (edge.empty()) continue;
    out.push_back(keys_only ? std::string(x.key) : fmt::format("{} ({})", coefficient_text(x), edge));
  }
  return out;
}

}  // namespace

void run_kernel_fit(const FitArgs& a, std::ostream& out, std::ostream& err) {
  std::unique_ptr<AtomicFile> file = a.out.empty() ? nullptr : std::make_unique<AtomicFile>(a.out, "out", &err);
  std::vector<Gpu> gpus;
  std::map<std::string, std::size_t> index;  // GPU name → position in gpus
  std::vector<MeasuredKernel> kernels;
  // Rows read but not fitted, and rows fitted that repeat an earlier row's kernel: on stderr in
  // every format, and in JSON's `notes`.
  std::vector<std::string> notes;
  std::vector<std::filesystem::path> read;  // each table once: twice, its kernels counted twice
  // The same bytes under another name (a copy) count twice as surely: each table's hash and size.
  std::map<std::pair<std::size_t, std::size_t>, std::string> contents;
  std::optional<GpuSpec> named;  // --gpu's, read at the first table whose name gives a GPU too
  for (const std::string& path : a.kernels) {
    std::error_code ec;
    const std::filesystem::path same = std::filesystem::weakly_canonical(path, ec);
    if (!ec && std::find(read.begin(), read.end(), same) != read.end()) {
      throw io::InputError(fmt::format("{}: --kernels: given twice (its kernels would count twice in the fit)", path));
    }
    if (!ec) read.push_back(same);
    const io::KernelTable t = read_flag_file("--kernels", path, [&] { return io::read_kernel_table(path); });
    if (const auto [copy, added] = contents.emplace(std::pair(t.content_hash, t.content_bytes), path); !added) {
      throw io::InputError(fmt::format("{}: --kernels: the same bytes as {}, given before it (its kernels would count "
                                       "twice in the fit)",
                                       path, copy->second));
    }
    std::string gpu = a.gpu;
    const std::string prefix = io::gpu_of_table(path);
    const auto it = kGpuOfPrefix.find(prefix);
    if (!gpu.empty() && it != kGpuOfPrefix.end()) {
      if (!named) named = read_flag_file("--gpu", a.gpu, [&] { return io::load_gpu(a.gpu); });
      require_same_gpu(path, prefix, it->second, a.gpu, *named);
    }
    if (gpu.empty()) {
      if (it == kGpuOfPrefix.end()) {
        throw io::InputError(fmt::format("{}: --gpu: the file's name does not say its GPU (a100_, h100_ or h200_ as in "
                                         "../shared/gpu-kernels/); name it with --gpu",
                                         path));
      }
      gpu = it->second;
    }
    // float32 GEMMs are another peak's kernels: fitted as a GPU of their own.
    const std::string key = t.fp32_gemms ? gpu + " (fp32)" : gpu;
    auto [slot, added] = index.emplace(key, gpus.size());
    if (added) {
      // A GPU the file's name gives is a preset's id; one --gpu gives may name nothing.
      const GpuSpec spec = named ? *named : read_flag_file("--gpu", a.gpu, [&] { return io::load_gpu(gpu); });
      gpus.push_back({key, ceilings_of(spec, t.fp32_gemms), t.fp32_gemms});
    }
    require_ceilings(t, gpus[slot->second]);
    require_physical(t, gpus[slot->second], !a.gpu.empty());
    for (const io::KernelSample& s : t.samples) kernels.push_back({s.klass, s.ask, s.seconds, slot->second});
    for (const auto& [why, rows] : t.left_out) notes.push_back(fmt::format("{}: {} rows left out: {}", path, rows, why));
    if (!t.repeated.empty()) {
      std::vector<std::string> which;
      for (std::size_t i = 0; i < std::min<std::size_t>(t.repeated.size(), 3); ++i) {
        which.push_back(fmt::format("line {} repeats line {}", t.repeated[i].line, t.repeated[i].earlier));
      }
      if (t.repeated.size() > 3) which.emplace_back("...");
      notes.push_back(fmt::format("{}: {} rows repeat an earlier row's kernel ({}): each fitted as a run of its own "
                                  "(Vidur's profiles time a few shapes twice)",
                                  path, t.repeated.size(), fmt::join(which, ", ")));
    }
  }
  if (kernels.empty()) throw io::InputError("--kernels: no table given holds a kernel the fit reads");
  // --for names a GPU as --gpu or the file's name does: its float32 tables are the GPU of
  // " (fp32)" when it has no 16-bit ones (either name is taken).
  std::string for_key = a.for_gpu;
  if (!for_key.empty() && !index.contains(for_key) && index.contains(for_key + " (fp32)")) for_key += " (fp32)";
  if (!for_key.empty() && !index.contains(for_key)) {
    std::vector<std::string> names;
    for (const Gpu& g : gpus) names.push_back(g.name);
    throw io::InputError(fmt::format("--for: `{}` is not a GPU of the tables ({})", a.for_gpu, fmt::join(names, ", ")));
  }
  if (!a.for_gpu.empty() && a.out.empty()) throw io::InputError("--for: chooses whose fit --out writes; give --out");
  // The block: the one GPU's own fit (--for's), or every GPU's together (for a GPU not in the tables).
  std::optional<std::size_t> chosen;
  if (gpus.size() == 1) chosen = 0;
  if (!for_key.empty()) chosen = index.at(for_key);
  // The GPU YAML's `gemm` class is 16-bit GEMMs against the bf16 or fp16 peak: a float32 fit
  // (against the fp32 peak) written there would price a 16-bit model's GEMMs by a CPU's float32.
  if (file && chosen && gpus[*chosen].fp32) {
    throw io::InputError(fmt::format("--out: `{}`'s tables are float32 GEMMs, fitted against its fp32 peak, and the "
                                     "GPU YAML's `gemm` class is 16-bit (bf16 or fp16): not written; read the fit "
                                     "without --out, or choose a GPU of 16-bit tables with --for",
                                     gpus[*chosen].name));
  }
  if (file) file->refuse_an_input();
  for (const std::string& l : notes) err << report::terminal_text(l) << "\n";

  const KernelFit f = fit_and_check_kernels(kernels, std::vector<KernelCeilings>([&] {
                                              std::vector<KernelCeilings> c;
                                              for (const Gpu& g : gpus) c.push_back(g.ceilings);
                                              return c;
                                            }()));
  // Where a GPU's coefficients of a class come from: its own fit; with too few kernels of it, every
  // GPU's fit (model/kernel_fit.hpp: the class keeps the pooled coefficients), or the shipped
  // defaults where every GPU's kernels together are too few as well. Said alike in every format.
  const auto pooled_fitted = [&](KernelClass k) {
    return std::any_of(f.summary.begin(), f.summary.end(), [&](const KernelFit::Summary& s) { return s.klass == k && s.fitted; });
  };
  const auto source_of = [&](const ClassResidual& r) -> std::string_view {
    return r.fitted ? "own fit" : pooled_fitted(r.klass) ? "every GPU's fit" : "shipped defaults";
  };

  std::string text;
  if (a.format == "json") {
    nlohmann::ordered_json j = report::run_envelope();
    j["gpus"] = nlohmann::json::array();
    for (const Gpu& g : gpus) j["gpus"].push_back(g.name);
    // What stderr says of the tables, here too: rows left out, rows that repeat a kernel.
    j["notes"] = nlohmann::json::array();
    for (const std::string& l : notes) j["notes"].push_back(report::terminal_text(l));
    for (const KernelFit::Summary& s : f.summary) {
      nlohmann::ordered_json c{{"class", name(s.klass)}, {"kernels", s.samples}, {"median_abs_log_in_sample", s.in_sample}};
      c["median_abs_log_held_out"] = s.held_out ? nlohmann::json(*s.held_out) : nlohmann::json(nullptr);
      c["least_measured_over_bound"] = s.closest;
      c["kernels_below_bound"] = s.below_bound;
      c["least_measured_over_streamed_bound"] =
          std::isinf(s.closest_streamed) ? nlohmann::json(nullptr) : nlohmann::json(s.closest_streamed);
      KernelCoefficients pooled = f.pooled;
      for (const ClassCoefficient& x : coefficients_of(s.klass, pooled)) c["coefficients"][std::string(x.key)] = *x.value;
      c["at_bound"] = s.fitted ? at_bounds(s.klass, pooled, true) : std::vector<std::string>{};
      c["per_gpu"] = nlohmann::json::array();
      for (const ClassResidual& r : f.residuals) {
        if (r.klass != s.klass) continue;
        nlohmann::ordered_json g{{"gpu", gpus[r.gpu].name}, {"kernels", r.samples}, {"fitted", r.fitted},
                                 {"coefficients_from", source_of(r)}, {"median_abs_log_in_sample", r.in_sample}};
        g["median_abs_log_held_out"] = r.held_out ? nlohmann::json(*r.held_out) : nlohmann::json(nullptr);
        KernelCoefficients own = f.per_gpu[r.gpu];
        for (const ClassCoefficient& x : coefficients_of(s.klass, own)) g["coefficients"][std::string(x.key)] = *x.value;
        g["at_bound"] = r.fitted ? at_bounds(s.klass, own, true) : std::vector<std::string>{};
        c["per_gpu"].push_back(g);
      }
      j["rows"].push_back(c);
    }
    text = j.dump(2) + "\n";
  } else {
    report::TextTable summary{"Kernel classes: median |log(expected / measured)|; the fastest kernel against its bound",
                              {"class", "kernels", "in-sample", "GPU held out", "measured/bound", "below it",
                               "measured/streamed", "coefficients (all GPUs)"},
                              {}};
    for (const KernelFit::Summary& s : f.summary) {
      summary.rows.push_back({std::string(name(s.klass)), std::to_string(s.samples), fixed3(s.in_sample),
                              s.held_out ? fixed3(*s.held_out) : "-", fmt::format("{:.3f}", s.closest),
                              std::to_string(s.below_bound),
                              std::isinf(s.closest_streamed) ? "-" : fmt::format("{:.3f}", s.closest_streamed),
                              s.fitted ? coefficients_text(s.klass, f.pooled) : "too few kernels: shipped defaults"});
    }
    report::TextTable per{"Per GPU: its own fit, and the fit on the other GPUs",
                          {"class", "GPU", "kernels", "in-sample", "held out", "coefficients (own fit)"},
                          {}};
    for (const ClassResidual& r : f.residuals) {
      per.rows.push_back({std::string(name(r.klass)), gpus[r.gpu].name, std::to_string(r.samples), fixed3(r.in_sample),
                          r.held_out ? fixed3(*r.held_out) : "-",
                          r.fitted ? coefficients_text(r.klass, f.per_gpu[r.gpu])
                                   : fmt::format("too few kernels: {}", source_of(r))});
    }
    const bool markdown = a.format == "markdown";
    for (const report::TextTable& t : {summary, per}) {
      text += (markdown ? report::render_markdown(t) : report::render_plain(t, report::table_width(out))) + "\n";
    }
    // A coefficient the fit left at a bound was not pinned by the tables: said, never silent.
    std::vector<std::string> edges;
    for (const KernelFit::Summary& s : f.summary) {
      if (!s.fitted) continue;
      for (const std::string& e : at_bounds(s.klass, f.pooled, false)) edges.push_back(fmt::format("{} {} (all GPUs)", name(s.klass), e));
    }
    for (const ClassResidual& r : f.residuals) {
      if (!r.fitted) continue;
      for (const std::string& e : at_bounds(r.klass, f.per_gpu[r.gpu], false)) {
        edges.push_back(fmt::format("{} {} ({})", name(r.klass), e, gpus[r.gpu].name));
      }
    }
    for (const std::string& e : edges) {
      text += fmt::format("warning: {}: the fit stopped at an end of the coefficient's physical range (the tables ask "
                          "for a value past it, or do not pin it)\n",
                          e);
    }
    text += "held out: each GPU's kernels priced by the fit on the other GPUs' (what a GPU not in the tables gets)\n"
            "measured/bound: the fastest kernel of a class over its DRAM roofline; below it: kernels faster than that "
            "(their activations stayed in L2 between timed runs); measured/streamed: over the roofline of the bytes "
            "that must stream (weights, KV cache)\n";
  }
  errno = 0;
  out << text;
  out.flush();
  if (!out) throw report::WriteError("", report::write_failure_reason(errno));
  if (!file) return;
  const bool one_gpu = chosen.has_value();
  ExpectedModel written;
  written.kernels = one_gpu ? f.per_gpu[*chosen] : f.pooled;
  written.kernels->own_tables = one_gpu;  // the pooled fit is for a GPU the tables never saw
  // As printed: three significant digits (times in µs), so the file reads as the table does.
  for (std::size_t c = 0; c < kKernelClasses; ++c) {
    for (const ClassCoefficient& x : coefficients_of(static_cast<KernelClass>(c), *written.kernels)) {
      // Scaled back as the YAML reader scales "3.32 us" (3.32 × 1e-6), so that it prints as written.
      *x.value = std::stod(fmt::format("{:.3g}", *x.value * (x.time ? 1e6 : 1))) * (x.time ? 1e-6 : 1);
    }
  }
  // What the block came from: each class's GPU and residual, so a preset says which it took.
  std::vector<std::string> gpu_names, own, pooled, shipped;
  for (const Gpu& g : gpus) gpu_names.push_back(g.name);
  for (std::size_t c = 0; c < kKernelClasses; ++c) {
    const auto k = static_cast<KernelClass>(c);
    const auto x = std::find_if(f.summary.begin(), f.summary.end(), [&](const KernelFit::Summary& s) { return s.klass == k; });
    const auto r = std::find_if(f.residuals.begin(), f.residuals.end(), [&](const ClassResidual& res) {
      return res.klass == k && chosen && res.gpu == *chosen && res.fitted;
    });
    if (x == f.summary.end() || !x->fitted) shipped.emplace_back(name(k));
    else if (r != f.residuals.end()) own.push_back(fmt::format("{} {:.3f}", name(k), r->in_sample));
    else pooled.push_back(fmt::format("{} {:.3f}", name(k), x->in_sample));
    // A GPU's own fit that did not measure a class borrows it: named in every output, not hidden by
    // own_tables (a GEMM table alone had switched the warning off for every other class).
    if (one_gpu && r == f.residuals.end()) written.kernels->borrowed.push_back(k);
  }
  // Tables too small to fit a single class: nothing of this GPU's own is in the block, which is
  // the shipped defaults, borrowed (own_tables would have named the GPU's kernels measured).
  if (one_gpu && own.empty()) {
    written.kernels->own_tables = false;
    written.kernels->borrowed.clear();
    own.emplace_back("none fitted (too few kernels of every class)");
  }
  std::string said = one_gpu ? fmt::format("rooflineplan fit --kernels on {} table{} ({}): {}'s own kernels: {}", a.kernels.size(),
                                           a.kernels.size() == 1 ? "" : "s",
                                           fmt::join(gpu_names, ", "), gpus[*chosen].name, fmt::join(own, ", "))
                             : fmt::format("rooflineplan fit --kernels on {} table{}, every GPU's kernels together ({}): {}",
                                           a.kernels.size(), a.kernels.size() == 1 ? "" : "s", fmt::join(gpu_names, ", "), fmt::join(pooled, ", "));
  if (one_gpu && !pooled.empty()) said += fmt::format("; every GPU's together: {}", fmt::join(pooled, ", "));
  said += " (median abs log in-sample)";
  if (!shipped.empty()) {
    said += fmt::format("; not in the tables or too few kernels there, the shipped defaults: {}", fmt::join(shipped, ", "));
  }
  std::vector<std::string> edges;
  for (std::size_t c = 0; c < kKernelClasses; ++c) {
    const auto k = static_cast<KernelClass>(c);
    if (std::find(shipped.begin(), shipped.end(), name(k)) != shipped.end()) continue;
    for (const std::string& key : at_bounds(k, *written.kernels, true)) edges.push_back(fmt::format("{}.{}", name(k), key));
  }
  if (!edges.empty()) said += fmt::format("; stopped at an end of its physical range: {}", fmt::join(edges, ", "));
  written.kernels->source = said;
  file->stream() << io::expected_yaml(written);
  file->commit();
  (a.format == "json" ? err : out) << fmt::format("wrote the expected: block with its kernels: to {}\n",
                                                  report::terminal_text(a.out));
}

}  // namespace roofline::cli
