#pragma once
// One Llama-3.1-8B replica on an H100 with the simulator's default server and the cache the
// engine leaves it, for the simulator's tests; and fixed lengths.
#include <vector>

#include "serve/disaggregated.hpp"
#include "serve/kv_capacity.hpp"
#include "serve/simulator.hpp"
#include "serve/traffic.hpp"
#include "specs.hpp"

namespace roofline::test {

struct Replica {
  ModelSpec model = llama_3_1_8b();
  GpuSpec gpu = h100_sxm();
  Workload base = default_workload(model);
  serve::StepCost cost{model, gpu, base};
  serve::ServerConfig config;
  Replica() {
    config.kv_blocks = serve::cache_blocks(model, gpu, base, config.block_tokens, config.max_batched_tokens).blocks;
  }
  serve::SimResult run(const std::vector<serve::Request>& r, serve::Timing t = serve::Timing::expected) {
    return serve::simulate(r, cost, config, t);
  }
  // The same replica as both pools' (serve/disaggregated.hpp), at the expected timing.
  serve::DisaggregatedResult disaggregate(const std::vector<serve::Request>& r, const serve::DisaggregatedConfig& pools) {
    return serve::simulate_disaggregated(r, cost, config, pools, serve::Timing::expected);
  }
};

inline serve::LengthDistribution fixed(long n) {
  return {serve::LengthDistribution::Kind::fixed, static_cast<double>(n), 0};
}

}  // namespace roofline::test
