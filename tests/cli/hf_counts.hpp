#pragma once
// What the published-config tests (test_hf_published.cpp, test_hf_2026.cpp) read of a config in
// tests/data/hf-configs/: its counts, its tables and its cache for one 32,768-token sequence.
#include <algorithm>
#include <string>

#include "cli_runner.hpp"
#include "model/parameters.hpp"

namespace roofline::test {

inline ModelSpec config(const std::string& name) { return io::load_model(data_file("hf-configs/" + name + ".json")); }
inline double total(const ModelSpec& m) { return count_parameters(m).total(); }
inline double active(const ModelSpec& m) { return count_parameters(m).active(); }
// The embedding and, untied, the head.
inline double tables(const ModelSpec& m) {
  const Architecture& a = *m.architecture;
  return static_cast<double>(a.vocab * a.hidden) * (a.tied_embeddings ? 1 : 2);
}
// K/V (or latent) cache and recurrent state of one sequence of 32,768 tokens, in bf16.
inline double cache_at_32k(const ModelSpec& m) {
  return cache_bytes_per_sequence(m, resolve_precision(DType::bf16, std::nullopt, {}), 32'768).value();
}
inline bool assumes(const ModelSpec& m, Assumption a) {
  return std::find(m.assumptions.begin(), m.assumptions.end(), a) != m.assumptions.end();
}

}  // namespace roofline::test
