#include "cli/validate_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "calibrate/calibration_device.hpp"
#include "calibrate/stream_size.hpp"
#include "model/engine.hpp"
#include "model/median.hpp"
#include "model/expected.hpp"
#include "report/human_units.hpp"
#include "report/warning_text.hpp"
#include "io/input_error.hpp"
#include "model/parameters.hpp"
#include "io/spec_loader.hpp"
#include "report/safe_text.hpp"
#include "report/terminal_width.hpp"
#include "report/text_table.hpp"
#include "cli/calibrate_command.hpp"
#include "cli/memory_check.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

// One phase at one batch: the bound and the expected time of its products, and every timed run.
// The bound is held to the fastest run (a bound must be below all of them), the expected time to
// the median (it is the typical one).
struct Point {
  std::string phase;
  long batch = 0;
  Seconds predicted;  // the roofline bound
  Expected expected;
  std::vector<double> seconds;
  calibrate::Timing measured;
  Bound bound = Bound::memory;
  [[nodiscard]] double error() const { return predicted.value() / measured.best - 1; }
  [[nodiscard]] double expected_error() const { return expected.time.value() / measured.median - 1; }
  [[nodiscard]] calibrate::Coverage inside() const {
    return calibrate::coverage(seconds, expected.low.value(), expected.high.value());
  }
};

// The engine's matrix products for a phase.
std::vector<calibrate::GemmShape> matmul_shapes(const PhaseResult& phase) {
  std::vector<calibrate::GemmShape> shapes;
  for (const OpResult& op : phase.ops) {
    const MatmulShape& s = op.cost.shape;
    if (s.count <= 0) continue;
    shapes.push_back({std::lround(s.rows), std::lround(s.in), std::lround(s.out), std::lround(s.count)});
  }
  return shapes;
}

// The operands a synthetic step allocates (run_step keeps every product's operands at once):
// weights [in × out] per layer, inputs [rows × in] and outputs [rows × out].
struct StepBytes {
  double weights = 0, activations = 0;
};
StepBytes step_bytes(const std::vector<calibrate::GemmShape>& shapes, DType dtype) {
  StepBytes b;
  for (const calibrate::GemmShape& s : shapes) {
    const auto rows = static_cast<double>(s.rows), in = static_cast<double>(s.in), out = static_cast<double>(s.out);
    b.weights += static_cast<double>(s.count) * in * out * bytes_per_element(dtype);
    b.activations += rows * (in + out) * bytes_per_element(dtype);
  }
  return b;
}

// Refuses, before anything is allocated, a step the machine cannot hold, naming the flag that
// made it large: the batch or prompt (activations) or the budget (weights).
void require_step_fits(const PhaseResult& phase, DType dtype, std::string_view rows_flag, long rows) {
  const StepBytes b = step_bytes(matmul_shapes(phase), dtype);
  const bool activations = b.activations > b.weights;
  require_memory(b.weights + b.activations, activations ? rows_flag : "budget",
                 activations ? fmt::format("the synthetic step's operands at {} {}", rows_flag, rows)
                             : std::string("the synthetic step's weights within --budget"));
}

// The phase's matrix products alone, as the engine timed them.
PhaseResult products_of(const PhaseResult& phase) {
  PhaseResult p;
  for (const OpResult& op : phase.ops) {
    if (op.cost.shape.count <= 0) continue;
    p.ops.push_back(op);
    p.time += op.time;
    p.compute_time += op.compute_time;
    p.memory_time += op.memory_time;
  }
  p.bound = p.compute_time > p.memory_time ? Bound::compute : Bound::memory;
  return p;
}

// The bound and the expected time the engine gives exactly these products; the runs come later.
// The expected time leaves out the per-pass cost: a synthetic step samples nothing and schedules
// nothing.
Point predict(const Report& r, const PhaseResult& phase, std::string name, long batch) {
  const PhaseResult products = products_of(phase);
  ExpectedModel m = r.gpu.spec.expected_model();
  m.step = Seconds(0);
  return {std::move(name), batch, products.time, expected_phase(products, m, r.gpu.ceilings), {}, {},
          products.bound};
}

// Each point's products run `repetitions` times in all, over up to three passes through every
// point: on a shared machine other work comes in bursts of seconds, and a burst then slows one
// pass's runs of a point rather than all of them, so that its median stays clean.
void run_points(std::vector<Point>& points, const std::vector<std::vector<calibrate::GemmShape>>& shapes,
                calibrate::CalibrationDevice& device, int repetitions) {
  const int passes = std::min(3, repetitions);
  for (int pass = 0; pass < passes; ++pass) {
    const int runs = repetitions / passes + (pass < repetitions % passes ? 1 : 0);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::vector<double> seconds = device.run_step(shapes[i], runs);
      points[i].seconds.insert(points[i].seconds.end(), seconds.begin(), seconds.end());
    }
  }
  for (Point& p : points) p.measured = calibrate::summarize_seconds(p.seconds);
}

// Fewer layers when the model's weights in the device's format exceed the budget; never fewer
// than one, whose matrices are still far larger than any cache. A budget given below one layer
// and the head is refused (one layer ran past the limit the user set, without a word); the
// default gives way to them, said on `err` (Llama-3.1-8B's fp32 layer and head are 2.97 GB).
ModelSpec scaled_to_budget(const ModelSpec& m, DType dtype, Bytes budget, bool given, std::ostream& err) {
  const Architecture& a = *m.architecture;
  const ParameterCount p = count_parameters(m);
  const double layer = p.linear_total / a.layers * bytes_per_element(dtype);
  const double head = static_cast<double>(a.vocab) * static_cast<double>(a.hidden) * bytes_per_element(dtype);
  if (budget.value() < head + layer) {
    if (given) {
      throw InputError(fmt::format("--budget: {} holds less than one of {}'s layers and its head in {} ({}); raise it",
                                   human(budget), m.name, name(dtype), human(Bytes(head + layer))));
    }
    err << fmt::format("note: one of {}'s layers and its head in {} take {}, past the default --budget {}: the step "
                       "allocates them (--budget sets a limit)\n",
                       terminal_text(m.name), name(dtype), human(Bytes(head + layer)), human(budget));
  }
  // Clamped as a double: a budget far above the model would not fit a long.
  const double fit = std::clamp(std::floor((budget.value() - head) / layer), 1.0, static_cast<double>(a.layers));
  ModelSpec scaled = m;
  scaled.architecture->layers = static_cast<int>(fit);
  drop_unused(scaled);  // a window or a moe section its first layers do not use
  if (scaled.architecture->layers < a.layers) {
    scaled.name = fmt::format("{} ({} of {} layers)", m.name, scaled.architecture->layers, a.layers);
  }
  return scaled;
}

double median_abs(const std::vector<Point>& points, double (Point::*error)() const) {
  if (points.empty()) return std::nan("");
  std::vector<double> e;
  for (const Point& p : points) e.push_back(std::fabs((p.*error)()));
  // Of an even count, the mean of the two middle errors: 2 points of 0.2% and 69.3% have a median
  // of 34.8%, not the larger.
  return median(std::move(e));
}

std::string interval(const Expected& e) {
  return fmt::format("{} ({}-{})", human(e.time), human(e.low), human(e.high));
}

// Whether the bound stayed a bound: below the fastest run of every point, or where it did not.
std::string bound_check(const std::vector<Point>& points) {
  std::string beaten;
  for (const Point& p : points) {
    if (p.error() <= 0) continue;
    beaten += fmt::format("{}{} {} (fastest run {} under it)", beaten.empty() ? "" : ", ", p.phase, p.batch,
                          fmt::format("{:.1f}%", 100 * (1 - p.measured.best / p.predicted.value())));
  }
  if (beaten.empty()) return "bound: below every run of every point\n";
  return fmt::format("bound: BEATEN at {}: the device ran faster than the calibrated ceilings allow; they were "
                     "measured while it was slower (busy, or its clock lower): calibrate again on a quiet machine\n",
                     beaten);
}

// The calibration's read stream and GEMM, measured again right before the points: a VM's
// neighbours, a clock or a thermal state move them between calibrate and validate, and the
// predictions (from the calibration) are then off by as much. Stated, not corrected: the
// predictions stay the calibration's. Empty when the calibration recorded neither kernel. The
// read stream is sized as calibrate sizes it by default, past this host's cache.
std::string drift_since(const Calibration& c, calibrate::CalibrationDevice& device, const calibrate::HostFacts& host,
                        bool cache_bound) {
  const auto recorded = [&](std::string_view kernel) {
    return std::find_if(c.kernels.begin(), c.kernels.end(), [&](const KernelRecord& k) { return k.name == kernel; });
  };
  // Only what the calibration recorded is measured again: a read stream past a large cache takes
  // gigabytes and seconds, for nothing when there is no figure to hold it against.
  const bool has_read = recorded("read") != c.kernels.end();
  const bool has_gemm = std::any_of(c.kernels.begin(), c.kernels.end(),
                                    [](const KernelRecord& k) { return k.name.starts_with("gemm_"); });
  if (!has_read && !has_gemm) return {};
  const calibrate::CalibrationOptions o{5, calibrate::default_stream_size(host, cache_bound).bytes};
  std::string parts;
  const auto compare = [&](const calibrate::Measurement& now) {
    const auto then = recorded(now.kernel);
    if (then == c.kernels.end() || !(then->best > 0) || !(now.best > 0)) return;
    if (!parts.empty()) parts += ", ";
    parts += fmt::format("{} {:+.0f}%", now.kernel, 100 * (now.best / then->best - 1));
  };
  if (has_read) compare(device.read(o));
  if (has_gemm) {
    for (const calibrate::Measurement& g : device.gemm(o)) compare(g);
  }
  if (parts.empty()) return {};
  return fmt::format("drift since calibration ({}): {}, the best of 5 runs now against the calibration's; the "
                     "predictions use the calibration's\n",
                     terminal_text(c.date), parts);
}

}  // namespace

void add_validate_options(Options& o, ValidateArgs& a) {
  using enum WorkloadFlag;
  // One device runs the synthetic step of a dense model: no parallel layouts (--ep on a dense
  // model was taken, and changed nothing measured).
  add_workload_options(o, a.workload, {attention, reserve, tp, pp, ep, weights, lm_head, group_size, kv, activations,
                                       compute, gen, context});
  o.add("--device", a.device, "cpu or cuda").one_of(calibrate::device_kinds()).show_default();
  o.add("--budget", a.budget, "most weight memory the synthetic step may allocate (the default gives way to one layer)")
      .show_default()
      .given(a.budget_given);
  o.add("--repetitions", a.repetitions, "timed runs per point, in up to three passes (bound: against the fastest; expected: the median)").show_default();
}

void run_validate(const ValidateArgs& a, std::ostream& out, std::ostream& err) {
  if (a.workload.model.empty() || a.workload.gpu.empty()) {
    throw InputError("validate: --model (a dense model) and --gpu (this device, calibrated) are required");
  }
  const WorkloadAxes x = parse_workload(a.workload);
  x.require_one({WorkloadFlag::batch});
  const ModelSpec model = read_flag_file("--model", x.model.front(), [&] { return load_model(x.model.front()); });
  const GpuSpec gpu = read_flag_file("--gpu", x.gpu.front(), [&] { return load_gpu(x.gpu.front()); });
  if (!model.architecture) throw InputError("validate: the model needs its architecture, not only `params`");
  if (model.architecture->moe) {
    throw InputError("validate: synthetic steps run dense models; expert routing is not reproduced");
  }
  check_repetitions(a.repetitions);
  const long prompt = x.prompt.front();
  if (prompt < 1) throw InputError(fmt::format("--prompt: must be at least 1, got {}", prompt));
  const Bytes budget(quantity_flag(a.budget, Dimension::bytes, "budget"));
  const std::vector<long>& batches = x.batch;
  if (*std::min_element(batches.begin(), batches.end()) < 1) throw InputError("--batch: batches must be at least 1");

  const CalibrationHost host = calibration_host();
  auto device = host.open_device(a.device);
  const DType dtype = device->gemm_dtype();
  if (!gpu.effective_peak(dtype)) {
    throw InputError(fmt::format("--gpu: {} gives no {} peak; calibrate it on this device first", gpu.name, name(dtype)));
  }
  // Warned, not refused: a datasheet is a fair thing to check a device against (how far below
  // it does this GPU run?), but the table must not read as a check of calibrated ceilings.
  if (!gpu.calibration) {
    err << fmt::format("warning: {} is not calibrated: predictions use its datasheet ceilings (× efficiency), not ones "
                       "measured on this device; run `rooflineplan calibrate --base {}` for those\n",
                       terminal_text(gpu.name), terminal_text(x.gpu.front()));
  }
  const ModelSpec scaled = scaled_to_budget(model, dtype, budget, a.budget_given, err);
  Workload w;
  w.prompt_tokens = prompt;
  w.gen_tokens = 2;
  w.context_tokens = prompt;
  w.precision.weights.fill(weight_format_of(dtype));
  w.precision.kv = w.precision.activations = w.precision.compute = dtype;

  // Every point's reports first, and their memory checked, before the first allocation.
  std::vector<Report> decode_reports;
  for (long b : batches) {
    w.batch = b;
    decode_reports.push_back(evaluate(scaled, gpu, w));
    require_step_fits(decode_reports.back().decode.step, dtype, "batch", b);
  }
  w.batch = 1;
  const Report prefill_report = evaluate(scaled, gpu, w);
  require_step_fits(prefill_report.prefill, dtype, "prompt", prompt);
  // What the model, the GPU file and the formats leave the expected times to (kernels measured on
  // other GPUs, a dtype assumed), said as every other command says it.
  for (const std::string& t : report::warning_texts(input_warnings(scaled, gpu, w))) {
    err << report::warning_label() << terminal_text(t) << "\n";
  }

  std::vector<Point> all;
  std::vector<std::vector<calibrate::GemmShape>> shapes;
  const double predicted_knee = decode_reports.back().critical_batch.weights_only;
  for (const Report& r : decode_reports) {
    all.push_back(predict(r, r.decode.step, "decode", r.workload.batch));
    shapes.push_back(matmul_shapes(r.decode.step));
  }
  all.push_back(predict(prefill_report, prefill_report.prefill, "prefill", 1));
  shapes.push_back(matmul_shapes(prefill_report.prefill));
  const std::string drift = gpu.calibration ? drift_since(*gpu.calibration, *device, host.facts, a.device == "cpu") : std::string();
  run_points(all, shapes, *device, a.repetitions);
  const std::vector<Point> decode(all.begin(), all.end() - 1);

  TextTable t{fmt::format("{}: the matrix products of each step, in {} on {}, predicted from the ceilings and "
                          "coefficients of {}",
                          scaled.name, name(dtype), device->description(), gpu.name),
              {"phase", "batch", "bound", "expected (10-90%)", "fastest", "median", "bound err", "expected err",
               "inside", "bound by"},
              {}};
  calibrate::Coverage covered;
  for (const Point& p : all) {
    const calibrate::Coverage in = p.inside();
    covered += in;
    t.rows.push_back({p.phase, fmt::format("{}", p.batch), human(p.predicted), interval(p.expected),
                      human(Seconds(p.measured.best)), human(Seconds(p.measured.median)),
                      fmt::format("{:+.1f}%", 100 * p.error()), fmt::format("{:+.1f}%", 100 * p.expected_error()),
                      fmt::format("{}/{}", in.inside, in.total), std::string(name(p.bound))});
  }
  out << render_plain(t, report::table_width(out));
  // The knee where the flat (memory-bound) step meets the compute slope of the largest batch.
  const Point& first = decode.front();
  const Point& last = decode.back();
  if (last.batch > first.batch) {
    const double slope = last.measured.best / static_cast<double>(last.batch);
    out << fmt::format("knee: measured ≈ {} (flat {} meets the slope of batch {}), predicted B* = {}\n",
                       three_digits(first.measured.best / slope), human(Seconds(first.measured.best)), last.batch,
                       three_digits(predicted_knee));
  }
  out << fmt::format("median |error| over the {} decode points: bound {:.1f}% (against the fastest run), expected "
                     "{:.1f}% (against the median)\n",
                     decode.size(), 100 * median_abs(decode, &Point::error), 100 * median_abs(decode, &Point::expected_error));
  out << fmt::format("coverage: {} of {} runs ({:.0f}%) inside the 10-90% interval\n", covered.inside, covered.total,
                     100.0 * covered.inside / covered.total);
  out << bound_check(all);
  out << drift;
  out << fmt::format("coefficients: {}\n", gpu.expected_model().source);
}

}  // namespace roofline::cli
