#include "model/layouts.hpp"

#include "model/engine.hpp"

namespace roofline {

namespace {

std::vector<int> tensor_sizes(const GpuSpec& g) {
  std::vector<int> out{1};
  if (!g.interconnect) return out;
  const int domain = g.interconnect->domain;
  for (int tp = 2; tp <= kMostGpusSearched && (tp <= domain || (g.network && tp % domain == 0)); tp *= 2) {
    out.push_back(tp);
  }
  return out;
}

}  // namespace

std::vector<Workload> candidate_layouts(const ModelSpec& m, const GpuSpec& g, const Workload& base, int* skipped,
                                        std::vector<RefusedLayout>* refused) {
  std::vector<Workload> out;
  int too_big = 0;
  const bool experts = m.architecture && m.architecture->moe;
  for (int tp : tensor_sizes(g)) {
    for (int pp = 1; pp <= 8 && tp * pp <= kMostGpusSearched; pp *= 2) {
      if (pp > 1 && !g.interconnect) break;
      for (int ep : experts && tp > 1 ? std::vector<int>{1, tp} : std::vector<int>{1}) {
        for (bool dp : ep > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
          Workload w = base;
          w.tp = tp;
          w.pp = pp;
          w.ep = ep;
          w.dp_attention = dp;
          w.microbatches = 0;
          w.expert_imbalance = ep > 1 ? base.expert_imbalance : 1.0;
          w.batch = 1;
          if (auto why = validate(w, m, g)) {
            if (refused) refused->push_back({w, std::move(*why)});
            continue;
          }
          const Report one = evaluate(m, g, w);
          if (one.memory.max_batch && *one.memory.max_batch < 1) {
            ++too_big;
            continue;
          }
          w.batch = base.batch;
          out.push_back(w);
        }
      }
    }
  }
  if (skipped) *skipped = too_big;
  return out;
}

}  // namespace roofline
