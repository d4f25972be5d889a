// A benchmark, not a test: an hour of traffic at 50 requests/s (Llama-3.1-8B on an H100, max batch
// 256, chunked prefill) simulated once on the expected step times. Run by hand:
//   build/tests/serve/rooflineplan_serve_bench
// (`taskset -c 0` for one core). It prints the requests, steps and seconds taken.
#include <chrono>
#include <cstdio>

#include "serve/kv_capacity.hpp"
#include "serve/simulator.hpp"
#include "serve/summary.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::serve;

int main() {
  const ModelSpec m = test::llama_3_1_8b();
  const GpuSpec g = test::h100_sxm();
  const Workload w = test::default_workload(m);
  ServerConfig c;
  c.max_batch = 256;
  c.chunked_prefill = true;
  c.kv_blocks = cache_blocks(m, g, w, c.block_tokens, c.max_batched_tokens).blocks;
  c.max_context = *m.max_context;
  c.sample_every = 3.6;
  const auto start = std::chrono::steady_clock::now();
  const LengthDistribution prompt{LengthDistribution::Kind::lognormal, 256, 0.8};
  const LengthDistribution gen{LengthDistribution::Kind::lognormal, 128, 0.8};
  const std::vector<Request> requests = generate({}, 50, 3600, prompt, gen, 0, c.block_tokens, 1);
  StepCost cost(m, g, w);
  const SimResult r = simulate(requests, cost, c, Timing::expected);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Summary s = summarize(r, {});
  std::printf("%zu requests, %ld steps, p99 TTFT %.1f ms, p99 TPOT %.1f ms: simulated in %.3f s\n", requests.size(),
              r.steps, 1e3 * s.ttft.p99, 1e3 * s.tpot.p99, seconds);
  return 0;
}
