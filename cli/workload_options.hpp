#pragma once
// The flags that describe one point (model, GPU, batch, lengths, formats, tp), shared by every
// command that evaluates points, and their translation into a validated Workload.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "io/units_parse.hpp"
#include "model/workload.hpp"

namespace roofline::cli {

struct WorkloadArgs {
  std::string model;
  std::string gpu;
  long batch = 1;
  long prompt = 512;
  long gen = 256;
  std::optional<long> context;
  std::string weights, kv, activations, compute;  // empty: follow the model's dtype
  std::optional<int> group_size;
  int tp = 1;
  std::string attention = "flash";
  double reserve = 0.1;
};

void add_workload_options(CLI::App& app, WorkloadArgs& args);

// A format flag: empty means "follow the model"; a typo is an InputError naming the flag.
[[nodiscard]] std::optional<DType> dtype_flag(const std::string& value, std::string_view flag);

// A positive dimensioned flag ("50ms", "2 GiB"), in SI units; an InputError naming the flag else.
[[nodiscard]] double quantity_flag(const std::string& value, io::Dimension d, std::string_view flag);

// Throws InputError naming the flag (`--batch: must be at least 1, got 0`).
[[nodiscard]] Workload make_workload(const WorkloadArgs& args, const ModelSpec& m, const GpuSpec& g);

}  // namespace roofline::cli
