// The simulator against queueing theory and against itself: M/D/1 at max batch 1, burstier
// arrivals raising the tail, ordered percentiles, reproducible seeds, preemption that still
// serves every request, and a prefix cache that shortens prefills.
#include <catch2/catch.hpp>

#include <cmath>

#include "serve/simulator.hpp"
#include "serve/summary.hpp"
#include "replica.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

using test::fixed;
using test::Replica;

std::vector<Request> traffic(ArrivalProcess a, double rate, double duration, std::uint64_t seed = 1) {
  const LengthDistribution prompt{LengthDistribution::Kind::lognormal, 512, 0.8};
  const LengthDistribution gen{LengthDistribution::Kind::lognormal, 128, 0.8};
  return generate(a, rate, duration, prompt, gen, 0, 16, seed);
}

void check_ordered(const Distribution& d) {
  CHECK(d.p50 <= d.p90);
  CHECK(d.p90 <= d.p99);
  CHECK(d.p50 > 0);
}

}  // namespace

TEST_CASE("max batch 1 with Poisson arrivals is an M/D/1 queue: at rho 0.7 the mean wait is rho S / (2(1 - rho)) within 3%") {
  Replica r;
  r.config.max_batch = 1;
  // S: one request of 128 prompt tokens and 2 output tokens alone (a prefill and one decode step).
  const SimResult alone = r.run({{0, 128, 2, 0}});
  const double S = alone.served.at(0).e2e;
  const double rho = 0.7, rate = rho / S;
  // 200 000 arrivals: the wait's autocorrelation at rho 0.7 spans ~40 services, so the mean is
  // known to about 1% (the check is deterministic: the seed is fixed).
  const auto requests = generate({}, rate, 200000 / rate, fixed(128), fixed(2), 0, 16, 7);
  const Summary s = summarize(r.run(requests), {});
  const double theory = rho * S / (2 * (1 - rho));  // 1.1667 S
  CHECK(std::abs(s.queue_wait.mean / theory - 1) < 0.03);
  // Every request's service is S: its time in the system less its wait.
  CHECK(std::abs(s.e2e.mean - s.queue_wait.mean - S) < 1e-9 * S);
}

TEST_CASE("gamma arrivals with CV 4 raise p99 TTFT over Poisson arrivals at the same rate") {
  Replica r;
  const Summary poisson = summarize(r.run(traffic({}, 20, 600)), {});
  const Summary bursty = summarize(r.run(traffic({ArrivalProcess::Kind::gamma, 4}, 20, 600)), {});
  CHECK(bursty.ttft.p99 > 1.5 * poisson.ttft.p99);
  CHECK(bursty.queue_wait.p99 > poisson.queue_wait.p99);
}

TEST_CASE("percentiles are ordered, and the expected timing is never faster than the bound's") {
  Replica r;
  const auto requests = traffic({}, 20, 300);
  const Summary e = summarize(r.run(requests), {});
  const Summary b = summarize(r.run(requests, Timing::bound), {});
  for (const Distribution& d : {e.ttft, e.tpot, e.e2e, b.ttft, b.tpot, b.e2e}) check_ordered(d);
  CHECK(e.served == static_cast<long>(requests.size()));
  CHECK(e.tpot.mean > b.tpot.mean);
  CHECK(e.e2e.p99 > b.e2e.p99);
}

TEST_CASE("a seed gives the same run, another seed another") {
  Replica r;
  const Summary a = summarize(r.run(traffic({}, 20, 120, 3)), {});
  const Summary again = summarize(r.run(traffic({}, 20, 120, 3)), {});
  const Summary other = summarize(r.run(traffic({}, 20, 120, 4)), {});
  CHECK(a.ttft.p99 == again.ttft.p99);
  CHECK(a.e2e.mean == again.e2e.mean);
  CHECK(a.ttft.p99 != other.ttft.p99);
}

TEST_CASE("a cache of 200 blocks preempts and recomputes, and still serves every request") {
  Replica r;
  r.config.kv_blocks = 200;  // 3200 tokens: four of these sequences at most
  const auto requests = generate({}, 5, 60, fixed(500), fixed(300), 0, 16, 1);
  const SimResult s = r.run(requests);
  CHECK(s.served.size() == requests.size());
  CHECK(s.preemptions > 0);
  CHECK(s.recomputed_tokens > 0);
  // A request longer than the whole cache is dropped, not run.
  CHECK(r.run({{0, 4000, 10, 0}}).dropped_no_room == 1);
}

TEST_CASE("chunked, speculating and short of cache, every output token is still produced once") {
  Replica r;
  r.config.kv_blocks = 300;
  r.config.chunked_prefill = true;
  r.config.max_batched_tokens = 256;
  r.config.speculation = Speculation{3, 0.6};
  const LengthDistribution prompt{LengthDistribution::Kind::uniform, 100, 1500};
  const LengthDistribution gen{LengthDistribution::Kind::uniform, 1, 600};
  const auto requests = generate({}, 8, 60, prompt, gen, 0.3, 16, 5);
  double wanted = 0;
  for (const Request& q : requests) wanted += static_cast<double>(q.gen);
  const SimResult s = r.run(requests);
  // The longest request, 1500 + 600 tokens, needs 132 of the 300 blocks: none is dropped.
  CHECK(s.served.size() == requests.size());
  CHECK(s.preemptions > 0);
  CHECK(s.output_tokens == wanted);
  for (const Outcome& o : s.served) CHECK(o.ttft <= o.e2e);
}

TEST_CASE("a prefix cache holding 80% of each prompt skips those tokens and shortens TTFT") {
  Replica r;
  const auto cold = generate({}, 10, 120, fixed(2000), fixed(50), 0, 16, 2);
  const auto warm = generate({}, 10, 120, fixed(2000), fixed(50), 0.8, 16, 2);
  CHECK(warm.at(0).cached == 1600);
  const SimResult w = r.run(warm);
  CHECK(w.cached_tokens == 1600.0 * static_cast<double>(w.served.size()));
  CHECK(summarize(w, {}).ttft.mean < 0.5 * summarize(r.run(cold), {}).ttft.mean);
}

TEST_CASE("chunked prefill under a 512-token budget splits long prompts over steps") {
  Replica r;
  r.config.chunked_prefill = true;
  r.config.max_batched_tokens = 512;
  const SimResult s = r.run({{0, 2000, 5, 0}});
  // ceil(2000 / 512) = 4 prefill steps, the last emitting the first token; then 4 decode steps.
  CHECK(s.steps == 8);
}

TEST_CASE("percentiles interpolate between order statistics: p50 of 1 2 3 4 is 2.5, p90 is 3.7") {
  const Distribution d = distribution({4, 1, 3, 2});
  CHECK(d.p50 == Approx(2.5));
  CHECK(d.p90 == Approx(3.7));
  CHECK(d.mean == Approx(2.5));
}
