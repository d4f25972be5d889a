#pragma once
// The flags that describe a workload, declared once for every command. Each value flag takes a
// list (1,2,4) whose items may be ranges (1..1024:x2): a sweep walks the product of all of
// them, a plan compares its GPUs and tp sizes, and a command that evaluates one point takes a
// list of one.
#include <array>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.hpp"
#include "hardware/gpu_spec.hpp"
#include "io/units_parse.hpp"
#include "model/model_spec.hpp"
#include "model/workload.hpp"

namespace roofline::cli {

// The flags, in the order a sweep nests them: the first outermost, batch varying fastest.
enum class WorkloadFlag {
  model, gpu, attention, reserve, tp, pp, ep, weights, lm_head, group_size, kv, activations, compute, prompt, gen,
  context, batch
};
inline constexpr std::size_t kWorkloadFlags = 17;
static_assert(static_cast<std::size_t>(WorkloadFlag::batch) + 1 == kWorkloadFlags, "one count per flag");

[[nodiscard]] std::string_view flag_name(WorkloadFlag f);  // "group-size"

// The largest values the workload flags take. Past them a number is a typo, not a workload, and
// the products the engine forms from them (batch × tokens × widths × bytes) stay far inside the
// 64 bits of a long and the 53 exact bits of a double.
inline constexpr long kMaxBatch = 10'000'000;       // --batch: 10^7 sequences
inline constexpr long kMaxTokens = 1'000'000'000;   // --prompt, --gen, --context: 10^9 tokens each
inline constexpr long kMaxTp = 65'536;              // --tp: GPUs in one tensor-parallel group; --pp, --ep too
inline constexpr long kMaxGroupSize = 1'000'000;  // --group-size: weights per scale, as a model file's quantization.group_size

// The flags as typed, each a list of items.
struct WorkloadFlags {
  std::vector<std::string> model{}, gpu{};
  std::vector<std::string> attention{"flash"};
  std::vector<double> reserve{0.1};
  std::vector<std::string> tp{"1"}, pp{"1"}, ep{"1"}, weights{}, lm_head{}, group_size{}, kv{}, activations{}, compute{};
  std::vector<std::string> prompt{"512"}, gen{"256"}, context{}, batch{"1"};
  // Whether --prompt and --gen were given, not defaulted: explain --scenario sets only the others.
  bool prompt_given = false, gen_given = false;
  // The layout's other choices: one value for every point.
  bool dp_attention = false;
  std::optional<long> microbatches{};  // not given: pp, at most the batch
  double expert_imbalance = 1.0;
};

// Declares every flag but those in `omit`: the ones a command decides itself (plan finds the
// batch; validate's device sets the formats).
void add_workload_options(Options& o, WorkloadFlags& f, std::initializer_list<WorkloadFlag> omit = {});

// The flags parsed, one list of values each. An empty format list is {nullopt}: follow the model.
struct WorkloadAxes {
  std::vector<std::string> model, gpu;
  std::vector<AttentionKernel> attention;
  std::vector<double> reserve;
  std::vector<long> tp, pp, ep;
  bool dp_attention = false;
  long microbatches = 0;
  double expert_imbalance = 1.0;
  std::vector<std::optional<WeightFormat>> weights, lm_head;
  std::vector<std::optional<long>> group_size;
  std::vector<std::optional<DType>> kv, activations, compute;
  std::vector<long> prompt, gen;
  std::vector<std::optional<long>> context;
  std::vector<long> batch;

  // Values per flag, in WorkloadFlag order.
  [[nodiscard]] std::array<std::size_t, kWorkloadFlags> sizes() const;
  // Throws InputError naming the first flag, but those in `lists`, given more than one value.
  void require_one(std::initializer_list<WorkloadFlag> lists = {}) const;
};

// Throws InputError naming the flag of an item that is not a count, a format or in range.
[[nodiscard]] WorkloadAxes parse_workload(const WorkloadFlags& f);

// The workload at one point (a position per flag, in WorkloadFlag order) for this model on this
// GPU (a checkpoint's compute format needs its peak); not validated: a sweep skips what
// require_valid would refuse.
[[nodiscard]] Workload workload_at(const WorkloadAxes& x, std::span<const std::size_t> index, const ModelSpec& m,
                                   const GpuSpec& g);

// What is wrong with a workload, naming the flag: the engine's rules (model/workload.hpp) and the
// command line's own (the decode step's context includes the prompt).
[[nodiscard]] std::optional<SpecError> workload_error(const Workload& w, const ModelSpec& m, const GpuSpec& g);

// Throws InputError naming the flag (`--batch: must be at least 1, got 0`).
void require_valid(const Workload& w, const ModelSpec& m, const GpuSpec& g);

// One point, as the commands that evaluate one read it: each flag with at most one value, the
// specs loaded and the workload validated. `command` prefixes the error when --model or --gpu is
// missing ("" for rooflineplan itself).
struct OnePoint {
  ModelSpec model;
  GpuSpec gpu;
  Workload workload;
};

// Throws InputError naming the first flag given more than one value, or what is wrong with it.
[[nodiscard]] OnePoint one_point(const WorkloadFlags& f, std::string_view command);

// A positive dimensioned flag ("50ms", "2 GiB"), in SI units; an InputError naming the flag else.
[[nodiscard]] double quantity_flag(const std::string& value, io::Dimension d, std::string_view flag);
// A latency target (--ttft, --tpot): a time from 1 µs to a day, or an InputError naming the flag.
[[nodiscard]] double latency_target(const std::string& value, std::string_view flag);

}  // namespace roofline::cli
