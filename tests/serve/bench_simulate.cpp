// A benchmark, not a test (issue 25's speed targets), run by hand:
//   build/tests/serve/rooflineplan_serve_bench            (`taskset -c 0` for one core)
// - one replica: an hour of traffic at 50 requests/s (Llama-3.1-8B on an H100, max batch 256,
//   chunked prefill) on the expected step times; target 1 s;
// - a fleet: 64 such replicas fed the Azure conversation trace (an hour of production requests,
//   ../shared/traces/azure_conv_2023.csv beside the repository, skipped when absent) rescaled to
//   400 requests/s, behind each router; target 10 s. Rescaled, the trace's hour lasts 48 s, so it
//   is timed too repeated back to back for an hour at 400 requests/s (1.4 million requests).
// It prints the requests, steps and seconds taken, and the fleet's latencies.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "io/trace_csv.hpp"
#include "serve/fleet.hpp"
#include "serve/kv_capacity.hpp"
#include "serve/simulator.hpp"
#include "serve/summary.hpp"
#include "specs.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The trace's arrivals scaled to `rate` from its first, as simulate --trace-rate does.
std::vector<Request> rescaled(const std::vector<io::TraceRow>& rows, double rate) {
  const double own = static_cast<double>(rows.size() - 1) / (rows.back().arrival - rows.front().arrival);
  std::vector<Request> out;
  for (const io::TraceRow& r : rows) out.push_back({(r.arrival - rows.front().arrival) * own / rate, r.prompt, r.output, 0});
  return out;
}

// The requests again and again, each copy starting one mean gap after the last ended, until `end`.
std::vector<Request> repeated(const std::vector<Request>& once, double rate, double end) {
  const double period = static_cast<double>(once.size()) / rate;
  std::vector<Request> out;
  for (double offset = 0;; offset += period) {
    for (Request r : once) {
      r.arrival += offset;
      if (r.arrival >= end) return out;
      out.push_back(r);
    }
  }
}

void time_fleet(const std::vector<Request>& requests, const std::string& what, const ModelSpec& m, const GpuSpec& g,
                const Workload& w, const ServerConfig& c, Routing how) {
  const auto start = std::chrono::steady_clock::now();
  StepCost cost(m, g, w);  // filled afresh each time: its tables' filling is part of the run
  const FleetResult f = simulate_fleet(requests, cost, c, {64, how}, Timing::expected);
  const double seconds = since(start);
  const Summary s = summarize(f.all, {});
  std::printf("64 replicas, %s, %s: %zu requests, %ld steps, TTFT p50 %.1f p99 %.1f ms, ITL p50 %.1f p99 %.1f ms, "
              "imbalance %.3f: simulated in %.3f s\n",
              std::string(name(how)).c_str(), what.c_str(), requests.size(), f.all.steps, 1e3 * s.ttft.p50,
              1e3 * s.ttft.p99, 1e3 * s.itl.p50, 1e3 * s.itl.p99, f.imbalance(), seconds);
}

}  // namespace

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
  {
    const auto start = std::chrono::steady_clock::now();
    const LengthDistribution prompt{LengthDistribution::Kind::lognormal, 256, 0.8};
    const LengthDistribution gen{LengthDistribution::Kind::lognormal, 128, 0.8};
    const std::vector<Request> requests = generate({}, 50, 3600, prompt, gen, 0, c.block_tokens, 1);
    StepCost cost(m, g, w);
    const SimResult r = simulate(requests, cost, c, Timing::expected);
    const double seconds = since(start);
    const Summary s = summarize(r, {});
    std::printf("one replica, an hour at 50 req/s: %zu requests, %ld steps, p99 TTFT %.1f ms, p99 TPOT %.1f ms: "
                "simulated in %.3f s\n",
                requests.size(), r.steps, 1e3 * s.ttft.p99, 1e3 * s.tpot.p99, seconds);
  }
  const std::filesystem::path trace = ROOFLINEPLAN_SHARED "/traces/azure_conv_2023.csv";
  if (!std::filesystem::exists(trace)) {
    std::printf("fleet: skipped, no %s\n", trace.c_str());
    return 0;
  }
  const std::vector<Request> requests = rescaled(io::read_trace(trace.string()), 400);
  for (const Routing how : {Routing::round_robin, Routing::random, Routing::least_loaded, Routing::prefix_affinity, Routing::kv_aware}) {
    time_fleet(requests, "the Azure conversation trace at 400 req/s", m, g, w, c, how);
  }
  const std::vector<Request> hour = repeated(requests, 400, 3600);
  for (const Routing how : {Routing::round_robin, Routing::least_loaded}) {
    time_fleet(hour, "that trace repeated for an hour", m, g, w, c, how);
  }
  return 0;
}
