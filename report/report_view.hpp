#pragma once
// The report for people: the phase table (prefill beside decode), the memory ledger, B*, and a
// verdict per phase; with `ops`, the per-operator table. Rendered as plain text or Markdown.
#include <optional>
#include <string>
#include <vector>

#include "model/report.hpp"
#include "report/text_table.hpp"

namespace roofline::report {

[[nodiscard]] TextTable phase_table(const Report& r);
[[nodiscard]] TextTable memory_table(const Report& r);
[[nodiscard]] TextTable ops_table(const Report& r);
[[nodiscard]] std::vector<std::string> summary_lines(const Report& r);  // model, GPU, workload
[[nodiscard]] std::string critical_batch_line(const Report& r);
[[nodiscard]] std::vector<std::string> verdicts(const Report& r);

// How many sequences share one read of the weights. Each micro-batch of a pipeline passes through
// its stage on its own and reads the stage's weights again (model/pipeline.hpp): a weight read
// serves one micro-batch, not the batch ("used 8192 times" was said of Llama-3.1-70B at batch 16
// in 8 micro-batches, whose prefill intensity, 659, is that of 1024 tokens a read). `even`: every
// micro-batch the same size, else `sequences` is the largest's. The point report's verdict and
// explain both say it.
// Under data-parallel attention (docs/layouts.md) every weight but the routed experts' runs on
// each GPU's own sequences, ⌈sequences / tp⌉ (`own`, `own_even`: every GPU the same number), while
// the routed experts run the picks of all `sequences`: a read of DeepSeek-V3's attention weights
// at tp 8, batch 8 serves 1 token, not 8. Elsewhere `own` is `sequences`.
struct PerRead {
  long sequences = 1;
  long microbatches = 1;
  bool even = true;
  long own = 1;
  int ranks = 1;  // GPUs the sequences are spread over: tp under data-parallel attention, else 1
  bool own_even = true;
};
[[nodiscard]] PerRead per_read(const Report& r, const std::optional<Pipeline>& pipeline);

// `part` as a percentage of `whole`, without the sign: one decimal ("52.5"), more where one would
// read 100.0 of a part that is not the whole ("100.03" of a GPU over by 0.03%, "99.99" of a step
// with a rest), and ">100" or "<100" where even 9 decimals would not tell them apart.
[[nodiscard]] std::string percent_of(double part, double whole);

[[nodiscard]] std::string render_report_plain(const Report& r, bool with_ops);
[[nodiscard]] std::string render_report_markdown(const Report& r, bool with_ops);

}  // namespace roofline::report
