#include "cli/validate_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "calibrate/calibration_device.hpp"
#include "model/engine.hpp"
#include "report/human_units.hpp"
#include "io/input_error.hpp"
#include "model/parameters.hpp"
#include "io/spec_loader.hpp"
#include "report/text_table.hpp"
#include "cli/workload_options.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

struct Point {
  std::string phase;
  long batch = 0;
  Seconds predicted;
  calibrate::Timing measured;
  Bound bound = Bound::memory;
  [[nodiscard]] double error() const { return predicted.value() / measured.best - 1; }
};

// The engine's matrix products for a phase, and the time it predicts for exactly those.
Point run_phase(const PhaseResult& phase, std::string name, long batch, calibrate::CalibrationDevice& device, int reps) {
  std::vector<calibrate::GemmShape> shapes;
  Point p{std::move(name), batch, Seconds(0), {}, phase.bound};
  Seconds compute, memory;
  for (const OpResult& op : phase.ops) {
    const MatmulShape& s = op.cost.shape;
    if (s.count <= 0) continue;
    shapes.push_back({std::lround(s.rows), std::lround(s.in), std::lround(s.out), std::lround(s.count)});
    p.predicted += op.time;
    compute += op.compute_time;
    memory += op.memory_time;
  }
  p.bound = compute > memory ? Bound::compute : Bound::memory;
  p.measured = calibrate::summarize_seconds(device.run_step(shapes, reps));
  return p;
}

// Fewer layers when the model's weights in the device's format exceed the budget; never fewer
// than one, whose matrices are still far larger than any cache.
ModelSpec scaled_to_budget(const ModelSpec& m, DType dtype, Bytes budget) {
  const Architecture& a = *m.architecture;
  const ParameterCount p = count_parameters(m);
  const double layer = p.linear_total / a.layers * bytes_per_element(dtype);
  const double head = static_cast<double>(a.vocab) * static_cast<double>(a.hidden) * bytes_per_element(dtype);
  const long fit = static_cast<long>(std::floor((budget.value() - head) / layer));
  ModelSpec scaled = m;
  scaled.architecture->layers = static_cast<int>(std::clamp(fit, 1L, static_cast<long>(a.layers)));
  if (scaled.architecture->layers < a.layers) {
    scaled.name = fmt::format("{} ({} of {} layers)", m.name, scaled.architecture->layers, a.layers);
  }
  return scaled;
}

double median_abs_error(std::vector<Point> points) {
  if (points.empty()) return std::nan("");
  std::vector<double> e;
  for (const Point& p : points) e.push_back(std::fabs(p.error()));
  std::sort(e.begin(), e.end());
  return e[e.size() / 2];
}

}  // namespace

void add_validate_options(Options& o, ValidateArgs& a) {
  using enum WorkloadFlag;
  add_workload_options(o, a.workload, {attention, reserve, tp, weights, group_size, kv, activations, compute, gen, context});
  o.add("--device", a.device, "cpu or cuda").one_of(calibrate::device_kinds()).show_default();
  o.add("--budget", a.budget, "most weight memory the synthetic step may allocate").show_default();
  o.add("--repetitions", a.repetitions, "timed runs per point (best is compared)").show_default();
}

void run_validate(const ValidateArgs& a, std::ostream& out) {
  if (a.workload.model.empty() || a.workload.gpu.empty()) {
    throw InputError("validate: --model (a dense model) and --gpu (this device, calibrated) are required");
  }
  const WorkloadAxes x = parse_workload(a.workload);
  x.require_one({WorkloadFlag::batch});
  const ModelSpec model = load_model(x.model.front());
  const GpuSpec gpu = load_gpu(x.gpu.front());
  if (!model.architecture) throw InputError("validate: the model needs its architecture, not only `params`");
  if (model.architecture->moe) {
    throw InputError("validate: synthetic steps run dense models; expert routing is not reproduced");
  }
  if (a.repetitions < 1) throw InputError(fmt::format("--repetitions: must be at least 1, got {}", a.repetitions));
  const long prompt = x.prompt.front();
  if (prompt < 1) throw InputError(fmt::format("--prompt: must be at least 1, got {}", prompt));
  const Bytes budget(quantity_flag(a.budget, Dimension::bytes, "budget"));
  const std::vector<long>& batches = x.batch;
  if (*std::min_element(batches.begin(), batches.end()) < 1) throw InputError("--batch: batches must be at least 1");

  auto device = calibrate::open_device(a.device);
  const DType dtype = device->gemm_dtype();
  if (!gpu.effective_peak(dtype)) {
    throw InputError(fmt::format("--gpu: {} gives no {} peak; calibrate it on this device first", gpu.name, name(dtype)));
  }
  const ModelSpec scaled = scaled_to_budget(model, dtype, budget);
  Workload w;
  w.prompt_tokens = prompt;
  w.gen_tokens = 2;
  w.context_tokens = prompt;
  w.precision = {dtype, dtype, dtype, dtype};

  std::vector<Point> decode;
  double predicted_knee = 0;
  for (long b : batches) {
    w.batch = b;
    const Report r = evaluate(scaled, gpu, w);
    predicted_knee = r.critical_batch.weights_only;
    decode.push_back(run_phase(r.decode.step, "decode", b, *device, a.repetitions));
  }
  w.batch = 1;
  const Point prefill = run_phase(evaluate(scaled, gpu, w).prefill, "prefill", 1, *device, a.repetitions);

  TextTable t{fmt::format("{}: the matrix products of each step, in {} on {}, predicted from the ceilings of {}",
                          scaled.name, name(dtype), device->description(), gpu.name),
              {"phase", "batch", "predicted", "measured", "median", "error", "bound"},
              {}};
  std::vector<Point> all = decode;
  all.push_back(prefill);
  for (const Point& p : all) {
    t.rows.push_back({p.phase, fmt::format("{}", p.batch), human(p.predicted), human(Seconds(p.measured.best)),
                      human(Seconds(p.measured.median)), fmt::format("{:+.1f}%", 100 * p.error()), std::string(name(p.bound))});
  }
  out << render_plain(t);
  // The knee where the flat (memory-bound) step meets the compute slope of the largest batch.
  const Point& first = decode.front();
  const Point& last = decode.back();
  if (last.batch > first.batch) {
    const double slope = last.measured.best / static_cast<double>(last.batch);
    out << fmt::format("knee: measured ≈ {} (flat {} meets the slope of batch {}), predicted B* = {}\n",
                       three_digits(first.measured.best / slope), human(Seconds(first.measured.best)), last.batch,
                       three_digits(predicted_knee));
  }
  std::vector<Point> memory_bound;
  std::copy_if(decode.begin(), decode.end(), std::back_inserter(memory_bound), [](const Point& p) { return p.bound == Bound::memory; });
  out << fmt::format("median |error|: {:.1f}% over all decode points, {:.1f}% over the {} memory-bound ones\n",
                     100 * median_abs_error(decode), 100 * median_abs_error(memory_bound), memory_bound.size());
}

}  // namespace roofline::cli
