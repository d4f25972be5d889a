#include "model/scans.hpp"

#include <algorithm>
#include <cmath>

#include "model/engine.hpp"

namespace roofline {

namespace {

Report with(const ModelSpec& m, const GpuSpec& g, Workload w, auto&& change) {
  change(w);
  return evaluate(m, g, w);
}

}  // namespace

std::vector<Report> scan_batch(const ModelSpec& m, const GpuSpec& g, const Workload& w, long last, int points) {
  std::vector<Report> out;
  long previous = 0;
  for (int i = 0; i <= points; ++i) {
    const long b = std::lround(std::pow(static_cast<double>(last), i / static_cast<double>(points)));
    if (b == previous) continue;
    previous = b;
    out.push_back(with(m, g, w, [b](Workload& x) { x.batch = b; }));
  }
  return out;
}

std::vector<Report> scan_context(const ModelSpec& m, const GpuSpec& g, const Workload& w, long last, int points) {
  std::vector<Report> out;
  for (int i = 0; i <= points; ++i) {
    out.push_back(with(m, g, w, [&](Workload& x) {
      x.context_tokens = std::max(1L, last * i / points);
      x.prompt_tokens = std::max(1L, x.context_tokens - x.gen_tokens);
    }));
  }
  return out;
}

const Report* first_overflow(const std::vector<Report>& scan) {
  const auto it = std::find_if(scan.begin(), scan.end(), [](const Report& r) { return !r.memory.fits; });
  return it == scan.end() ? nullptr : &*it;
}

Variations variations(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  Variations v{evaluate(m, g, w), {}, {}, {}, {}, {}, {}, {}};
  v.batch1 = with(m, g, w, [](Workload& x) { x.batch = 1; });
  const long twice_critical = std::max(2L, std::lround(2 * v.base.critical_batch.weights_only));
  v.batch64 = with(m, g, w, [](Workload& x) { x.batch = 64; });
  v.twice_critical = with(m, g, w, [twice_critical](Workload& x) { x.batch = twice_critical; });
  // What `--weights int4` quantizes: the block linears; the head and embeddings keep their formats.
  v.int4 = with(m, g, w, [](Workload& x) {
    for (TensorClass c : kBlockClasses) x.precision.set(c, WeightFormat::int4);
  });
  v.kv8 = with(m, g, w, [](Workload& x) { x.precision.kv = DType::fp8; });
  v.naive = with(m, g, w, [](Workload& x) { x.attention = AttentionKernel::naive; });
  // Verifying the drafted tokens of every sequence is one step over that many times the rows,
  // with one weight read.
  v.speculative = with(m, g, w, [](Workload& x) { x.batch *= Variations::kDraftedTokens; });
  return v;
}

}  // namespace roofline
