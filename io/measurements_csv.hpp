#pragma once
// A measurements file: one measured run a row, in the columns of
// tests/data/measurements/training.csv (id, source, model, gpu, weights, kv, tp, batch, prompt,
// gen, extra_flags, metric, measured, note), read with libcsv (RFC 4180 quoting). Columns are
// found by their header's names, in any order; extra_flags and note may be left out.
//
// The cells a workload flag reads (weights, kv, tp, batch, prompt, gen, extra_flags) stay text:
// the one workload-flag parser reads them (cli/workload_options.hpp), so that a row takes exactly
// what the command line takes. The cells only this file has are typed here.
#include <cstddef>
#include <string>
#include <vector>

#include "model/measured_run.hpp"

namespace roofline::io {

struct MeasurementRow {
  std::size_t line = 0;  // where the record starts in the file, from 1 (the header's)
  std::string id, source, model, gpu;
  std::string weights, kv, tp, batch, prompt, gen, extra_flags;
  Metric metric = Metric::decode_tok_s_per_seq;
  double measured = 0;
  std::string note;
};

// The most runs a file holds: fit checks 10 000 in some 5 s (model/leave_one_source_out.hpp).
inline constexpr std::size_t kMaxMeasuredRuns = 10'000;

// Every row, or an InputError naming `path:line: column:` and what is wrong: a malformed record,
// a missing or unknown column, an empty id, source, model or gpu, an id used twice, a metric not
// in the list, a measured value outside its physical range, more than kMaxMeasuredRuns rows. A
// file without rows is an error.
[[nodiscard]] std::vector<MeasurementRow> read_measurements(const std::string& path);

}  // namespace roofline::io
