#pragma once
// A serving trace: one request a row, in columns found by their header's names, in any order:
// arrival_s (seconds from the start, never going back), prompt_tokens, output_tokens, and
// optionally cached_tokens (the prompt's prefix a cache already holds); or the Azure LLM inference
// traces' names for the first three (arrived_at, num_prefill_tokens, num_decode_tokens). Read with
// libcsv.
#include <cstddef>
#include <string>
#include <vector>

namespace roofline::io {

struct TraceRow {
  std::size_t line = 0;
  double arrival = 0;
  long prompt = 0, output = 0, cached = 0;
};

// Every row, or an InputError naming `path:line: column:` and what is wrong: a missing or unknown
// column, a cell that is not a count (a non-negative time), an arrival before the one above it,
// a cached prefix not shorter than its prompt. A file without rows is an error.
[[nodiscard]] std::vector<TraceRow> read_trace(const std::string& path);

// Which lengths a file of them gives: prompts or outputs.
enum class Lengths { prompt, output };

// One column of token counts from a CSV file with a header (a trace, or a file of lengths such as
// an arXiv summarization set's): `column`, or else the trace's name for `which` (prompt_tokens,
// output_tokens) or the Azure traces' (num_prefill_tokens, num_decode_tokens), the first the
// header has. Every cell a count of at least 1 token; an InputError naming `path:line:` and the
// column otherwise. `used`, when given, gets the column read.
[[nodiscard]] std::vector<long> read_lengths(const std::string& path, const std::string& column, Lengths which,
                                             std::string* used = nullptr);

}  // namespace roofline::io
