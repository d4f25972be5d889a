// Fleets behind a router (issue 25) against queueing theory and against the one-replica
// simulator: random routing splits Poisson arrivals into independent Poisson streams, joining the
// shortest queue beats it, every request is served or dropped once, round robin deals evenly, a
// fleet of one is the simulator itself, and prefix groups stay warm where affinity sends them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "replica.hpp"
#include "serve/fleet.hpp"
#include "serve/server.hpp"
#include "serve/summary.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

using test::fixed;
using test::Replica;

// Max batch 1 and fixed lengths: each replica an M/D/1 queue whose service S is one request of
// 128 prompt tokens and 2 output tokens alone (a prefill and one decode step).
struct Md1 : Replica {
  double S = 0;
  Md1() {
    config.max_batch = 1;
    S = run({{0, 128, 2, 0}}).served.at(0).e2e;
  }
  FleetResult fleet(const std::vector<Request>& r, std::size_t n, Routing how) {
    return simulate_fleet(r, cost, config, {n, how}, Timing::expected);
  }
};

void check_same(const SimResult& a, const SimResult& b) {
  REQUIRE(a.served.size() == b.served.size());
  for (std::size_t i = 0; i < a.served.size(); ++i) {
    const Outcome &x = a.served[i], &y = b.served[i];
    CHECK(x.request == y.request);
    CHECK(x.ttft == y.ttft);
    CHECK(x.tpot == y.tpot);
    CHECK(x.e2e == y.e2e);
    CHECK(x.queue_wait == y.queue_wait);
    CHECK(x.preemptions == y.preemptions);
  }
  REQUIRE(a.dropped.size() == b.dropped.size());
  for (std::size_t i = 0; i < a.dropped.size(); ++i) CHECK(a.dropped[i].request == b.dropped[i].request);
  CHECK(a.steps == b.steps);
  CHECK(a.end == b.end);
  CHECK(a.preemptions == b.preemptions);
  CHECK(a.recomputed_tokens == b.recomputed_tokens);
  CHECK(a.itl.count() == b.itl.count());
  CHECK(a.itl.mean() == b.itl.mean());
  CHECK(a.itl.percentile(99) == b.itl.percentile(99));
  CHECK(a.running_seconds == b.running_seconds);
  CHECK(a.samples.size() == b.samples.size());
}

}  // namespace

TEST_CASE("fleet: 4 replicas routed at random at rate 4 lambda each wait as M/D/1 at lambda, rho 0.7, within 3%") {
  Md1 r;
  const double rho = 0.7, lambda = rho / r.S;
  // 200 000 arrivals, some 50 000 a replica: a Poisson stream split at random is four independent
  // Poisson streams at lambda, each an M/D/1 queue with mean wait rho S / (2 (1 - rho)) = 1.1667 S.
  // The fleet's mean over 200 000 waits is known to about 1% (the seed is fixed: deterministic).
  const auto requests = generate({}, 4 * lambda, 200000 / (4 * lambda), fixed(128), fixed(2), 0, 16, 11);
  const FleetResult f = r.fleet(requests, 4, Routing::random);
  const Summary s = summarize(f.all, {});
  const double theory = rho * r.S / (2 * (1 - rho));
  CHECK(std::abs(s.queue_wait.mean / theory - 1) < 0.03);
  CHECK(s.served == static_cast<long>(requests.size()));
  // Each replica's share is binomial(n, 1/4): within 4 sigma (sqrt(n 3/16) = 194) of n / 4.
  for (const long k : f.routed) CHECK(std::abs(static_cast<double>(k) - static_cast<double>(requests.size()) / 4) < 4 * 194);
  // And one replica at lambda alone, the same queue, waits the same within the two runs' noise.
  const auto one = generate({}, lambda, 200000 / lambda, fixed(128), fixed(2), 0, 16, 12);
  CHECK(std::abs(s.queue_wait.mean / summarize(r.run(one), {}).queue_wait.mean - 1) < 0.04);
}

TEST_CASE("fleet: random routing draws apart from the traffic of the same seed - each replica's gaps are the stream's") {
  // simulate seeds the traffic and the router with one --seed. Drawn from one stream, request k's
  // replica was floor(u_k·4) of the u_k whose -ln(u_k)/rate was its gap: replica 3 took the
  // requests that came right after another, its mean gap before them 0.0034 s of the 0.025. Its
  // seed then as seed ^ 0x9e3779b97f4a7c15 (splitmix64's increment) was the traffic's stream one
  // draw on wherever seed & that is 0: seeds 0 and 2 gave replica 3 a mean gap of 3.5 ms.
  for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{0}, std::uint64_t{2}}) {
    INFO("seed " << seed);
    Md1 r;
    r.config.seed = seed;
    const double rate = 40;
    const auto requests = generate({}, rate, 20000 / rate, fixed(128), fixed(2), 0, 16, seed);
    const FleetResult f = r.fleet(requests, 4, Routing::random);
    std::vector<double> gaps(4, 0), count(4, 0);
    for (std::size_t k = 1; k < requests.size(); ++k) {
      gaps[f.replica_of[k]] += requests[k].arrival - requests[k - 1].arrival;
      count[f.replica_of[k]] += 1;
    }
    // Some 5000 gaps a replica, exponential: the mean within 4 sigma (1/sqrt(5000) = 1.4%) of 1/rate.
    for (std::size_t i = 0; i < 4; ++i) CHECK(std::abs(gaps[i] / count[i] * rate - 1) < 4 * 0.0142);
  }
}

TEST_CASE("fleet: least-loaded waits less than random at rho 0.8, in the mean and at p99, TTFT too") {
  Md1 r;
  const double rho = 0.8, lambda = rho / r.S;
  const auto requests = generate({}, 4 * lambda, 40000 / (4 * lambda), fixed(128), fixed(2), 0, 16, 3);
  const Summary random = summarize(r.fleet(requests, 4, Routing::random).all, {});
  const Summary least = summarize(r.fleet(requests, 4, Routing::least_loaded).all, {});
  // Random: four M/D/1 queues at 0.8, mean wait 0.8 S / 0.4 = 2 S. Joining the shortest of four
  // queues is near one queue before four servers (M/D/4 at 0.8: about 0.4 S), far below (0.36 S
  // measured, random 1.99 S since its draws are a stream of their own, 1.88 S before; S = 15.5 ms).
  CHECK(std::abs(random.queue_wait.mean / (2 * r.S) - 1) < 0.1);
  CHECK(least.queue_wait.mean < 0.5 * random.queue_wait.mean);
  CHECK(least.queue_wait.p99 < random.queue_wait.p99);
  CHECK(least.ttft.mean < random.ttft.mean);
  CHECK(least.ttft.p99 < random.ttft.p99);
  // Round robin deals each replica every fourth arrival, an Erlang-4 stream: an E_4/D/1 queue,
  // whose waits Kingman puts at (1/4 + 0) / 2 of M/D/1's, below random's too.
  const Summary robin = summarize(r.fleet(requests, 4, Routing::round_robin).all, {});
  INFO("S " << r.S << ", waits: random " << random.queue_wait.mean << ", least-loaded " << least.queue_wait.mean
            << ", round robin " << robin.queue_wait.mean);
  CHECK(robin.queue_wait.mean < 0.5 * random.queue_wait.mean);
}

TEST_CASE("fleet: least-loaded and kv-aware continuous-batching replicas beat random on TTFT at a loaded fleet") {
  Replica r;
  r.config.max_batch = 16;  // a small batch, so queues form at this rate
  const LengthDistribution prompt{LengthDistribution::Kind::lognormal, 512, 0.8};
  const LengthDistribution gen{LengthDistribution::Kind::lognormal, 128, 0.8};
  // 100 req/s: loaded but keeping up (at 400, as this test once ran, every router's fleet fell
  // behind alike, its TTFTs a minute long and within 0.1% of each other).
  const auto requests = generate({}, 100, 60, prompt, gen, 0, 16, 5);
  const Summary random = summarize(simulate_fleet(requests, r.cost, r.config, {8, Routing::random}, Timing::expected).all, {});
  const Summary least = summarize(simulate_fleet(requests, r.cost, r.config, {8, Routing::least_loaded}, Timing::expected).all, {});
  INFO("random TTFT mean " << random.ttft.mean << " p99 " << random.ttft.p99 << ", least-loaded " << least.ttft.mean << " "
                           << least.ttft.p99);
  CHECK(least.ttft.mean < 0.5 * random.ttft.mean);
  CHECK(least.ttft.p99 < 0.5 * random.ttft.p99);
  CHECK(least.queue_wait.mean < 0.5 * random.queue_wait.mean);
  // Dynamo's cost in blocks beats random too, though not least-loaded: here the batch's 16 slots
  // bind, which requests count and blocks do not.
  const Summary kv = summarize(simulate_fleet(requests, r.cost, r.config, {8, Routing::kv_aware}, Timing::expected).all, {});
  INFO("kv-aware TTFT mean " << kv.ttft.mean << " p99 " << kv.ttft.p99);
  CHECK(kv.ttft.mean < 0.5 * random.ttft.mean);
  CHECK(kv.ttft.p99 < 0.5 * random.ttft.p99);
  CHECK(least.ttft.p99 < kv.ttft.p99);
}

TEST_CASE("fleet: every request is served or dropped exactly once, under every router") {
  Replica r;
  r.config.kv_blocks = 300;  // 4800 tokens: preemptions, and a request past it dropped
  r.config.max_context = 3000;
  const LengthDistribution prompt{LengthDistribution::Kind::uniform, 100, 4000};
  const LengthDistribution gen{LengthDistribution::Kind::uniform, 1, 900};
  auto requests = generate({}, 30, 20, prompt, gen, 0.3, 16, 9);
  assign_groups(requests, 5, 9);
  for (const Routing how : {Routing::round_robin, Routing::random, Routing::least_loaded, Routing::prefix_affinity, Routing::kv_aware}) {
    INFO(name(how));
    const FleetResult f = simulate_fleet(requests, r.cost, r.config, {3, how}, Timing::expected);
    std::vector<std::size_t> seen;
    for (const Outcome& o : f.all.served) seen.push_back(o.request);
    for (const Dropped& d : f.all.dropped) seen.push_back(d.request);
    std::sort(seen.begin(), seen.end());
    std::vector<std::size_t> all(requests.size());
    std::iota(all.begin(), all.end(), 0);
    CHECK(seen == all);  // a permutation of the indices: none twice, none missing
    CHECK(f.all.dropped_too_long > 0);
    CHECK(f.all.preemptions > 0);
    CHECK(std::accumulate(f.routed.begin(), f.routed.end(), 0L) == static_cast<long>(requests.size()));
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(f.routed[k] == std::count(f.replica_of.begin(), f.replica_of.end(), k));
    }
  }
}

TEST_CASE("fleet: round robin deals 10 requests to 4 replicas as 3, 3, 2, 2, each its turn") {
  Replica r;
  std::vector<Request> requests;
  for (int i = 0; i < 10; ++i) requests.push_back({0.01 * i, 100, 5, 0});
  const FleetResult f = simulate_fleet(requests, r.cost, r.config, {4, Routing::round_robin}, Timing::expected);
  CHECK(f.routed == std::vector<long>{3, 3, 2, 2});
  for (std::size_t i = 0; i < 10; ++i) CHECK(f.replica_of[i] == i % 4);
  CHECK(f.imbalance() == Approx(3 / 2.5));
}

TEST_CASE("fleet: least-loaded reads each replica's load at the arrival, finished requests gone") {
  Replica r;
  // 0 runs for seconds on replica 0; 1 (two tokens, some 20 ms) goes to the idle replica 1 and is
  // done by t = 1; so at t = 1 the loads are (1, 0): 2 goes to replica 1, and 3, at the same
  // moment, sees (1, 1) and goes to the one after the last picked, 0.
  const std::vector<Request> requests{{0, 128, 1000, 0}, {0.001, 128, 2, 0}, {1, 128, 5, 0}, {1, 128, 5, 0}};
  const FleetResult f = simulate_fleet(requests, r.cost, r.config, {2, Routing::least_loaded}, Timing::expected);
  CHECK(f.replica_of == std::vector<std::uint32_t>{0, 1, 1, 0});
  // Mid-step: a request arriving during the decode step that will finish 1 still counts 1 on
  // replica 1 (the step has not ended), so it ties (1, 1) and goes to replica 0; just after that
  // step ends, the loads are (2, 0) and the next goes to replica 1.
  const Outcome alone = r.run({{0, 128, 2, 0}}).served.at(0);  // prefill to ttft, one decode step to e2e
  const double mid = 0.001 + alone.ttft + (alone.e2e - alone.ttft) / 2, after = 0.001 + alone.e2e + 1e-9;
  const std::vector<Request> racing{{0, 128, 1000, 0}, {0.001, 128, 2, 0}, {mid, 128, 5, 0}, {after, 128, 5, 0}};
  const FleetResult g = simulate_fleet(racing, r.cost, r.config, {2, Routing::least_loaded}, Timing::expected);
  CHECK(g.replica_of == std::vector<std::uint32_t>{0, 1, 0, 1});
}

TEST_CASE("fleet: least-loaded deals ties in turn, as nginx's least_conn does, not to the first replica") {
  Replica r;
  // Each request done long before the next arrives: every arrival sees four idle replicas.
  std::vector<Request> apart;
  for (int i = 0; i < 6; ++i) apart.push_back({10.0 * i, 128, 2, 0});
  const FleetResult f = simulate_fleet(apart, r.cost, r.config, {4, Routing::least_loaded}, Timing::expected);
  CHECK(f.replica_of == std::vector<std::uint32_t>{0, 1, 2, 3, 0, 1});
  // At t = 5 replicas 1 and 3 are idle (0 and 2 run long outputs): the first arrival goes to the
  // one after the last picked (2), 3, and the next to 1; ties to the first gave 1, then 3.
  const std::vector<Request> busy{{0, 128, 1000, 0}, {0.001, 128, 2, 0}, {0.002, 128, 1000, 0}, {5, 128, 2, 0}, {5, 128, 2, 0}};
  const FleetResult g = simulate_fleet(busy, r.cost, r.config, {4, Routing::least_loaded}, Timing::expected);
  CHECK(g.replica_of == std::vector<std::uint32_t>{0, 1, 2, 3, 1});
  // Prefix-affinity routes a request of no group as least-loaded, ties in turn; one of a group goes
  // where its group hashes, and leaves the turn where it was.
  std::vector<Request> mixed = apart;
  mixed[2].group = 7;
  const std::size_t home = Rng(7).next() % 4;
  const FleetResult h = simulate_fleet(mixed, r.cost, r.config, {4, Routing::prefix_affinity}, Timing::expected);
  CHECK(h.replica_of == std::vector<std::uint32_t>{0, 1, static_cast<std::uint32_t>(home), 2, 3, 0});
}

TEST_CASE("fleet: kv-aware weighs each replica's prompt blocks, as Dynamo's KV router does, where least-loaded counts requests") {
  Replica r;
  // A 4000-token prompt on replica 0 (250 blocks of 16, in prefill and held for decode), then two
  // short prompts: least-loaded sees (1, 0), then (1, 1) and deals the tie to 0; kv-aware sees
  // 250 + 250 + 2 against 2, then against 2 + 2 + 2 (the first short one's blocks), and sends both to 1.
  const std::vector<Request> requests{{0, 4000, 1000, 0}, {0.001, 32, 2, 0}, {0.002, 32, 2, 0}};
  const FleetResult least = simulate_fleet(requests, r.cost, r.config, {2, Routing::least_loaded}, Timing::expected);
  CHECK(least.replica_of == std::vector<std::uint32_t>{0, 1, 0});
  const FleetResult kv = simulate_fleet(requests, r.cost, r.config, {2, Routing::kv_aware}, Timing::expected);
  CHECK(kv.replica_of == std::vector<std::uint32_t>{0, 1, 1});
}

TEST_CASE("server: the KV router's cost, by hand: prefill blocks until the first token, decode blocks until the end") {
  Replica r;
  // A: 160 prompt tokens (10 blocks of 16), 3 outputs; C: a group's 64 (4 blocks), 32 of them its
  // cached prefix (2 blocks) once this replica holds the group. The probe: 32 tokens, 2 blocks.
  const std::vector<Request> requests{{0, 160, 3, 0}, {5, 64, 2, 32, 9}};
  const Request probe{0, 32, 2, 0}, grouped{0, 64, 2, 32, 9};
  Server s(requests, r.cost, r.config, Timing::expected);
  CHECK(s.kv_cost(0, probe) == 2);
  s.take(0);
  CHECK(s.kv_cost(0, probe) == 10 + 10 + 2);
  // Its prefill step starts at 0 and ends at its TTFT: run to just after 0, the step has run, but
  // at that moment its first token has not yet come.
  s.run_until(1e-9);
  CHECK(s.kv_cost(1e-9, probe) == 10 + 10 + 2);
  // Just past its TTFT (the decode step after it under way): its prefill blocks are off.
  const Outcome alone = r.run({requests[0]}).served.at(0);
  s.run_until(alone.ttft + 1e-9);
  CHECK(s.kv_cost(alone.ttft + 1e-9, probe) == 10 + 2);
  s.run_until(4);
  CHECK(s.kv_cost(4, probe) == 2);  // A finished
  CHECK(s.kv_cost(4, grouped) == 4);  // group 9 not held here: the whole prompt
  s.take(1);
  CHECK(s.kv_cost(5, probe) == 4 + 4 + 2);
  s.run();
  CHECK(s.kv_cost(60, probe) == 2);
  CHECK(s.kv_cost(60, grouped) == 4 - 2);  // its prefix now held here
}

TEST_CASE("fleet: a latency cap stops a run at the request one over its allowance, the replicas counting together") {
  Replica r;
  const LengthDistribution prompt{LengthDistribution::Kind::lognormal, 1024, 0.8};
  const LengthDistribution gen{LengthDistribution::Kind::lognormal, 64, 0.8};
  const auto requests = generate({}, 60, 20, prompt, gen, 0, 16, 3);
  const FleetResult whole = simulate_fleet(requests, r.cost, r.config, {3, Routing::round_robin}, Timing::expected);
  std::vector<double> ttft;
  for (const Outcome& o : whole.all.served) ttft.push_back(o.ttft);
  std::sort(ttft.begin(), ttft.end());
  const double limit = ttft[ttft.size() / 2];
  const auto over = static_cast<long>(std::count_if(ttft.begin(), ttft.end(), [&](double x) { return x > limit; }));
  REQUIRE(over > 10);
  ServerConfig capped = r.config;
  LatencyCap cap;
  cap.ttft = limit;
  cap.ttft_allowed = over;  // every one over it allowed: the run ends, as it would have
  capped.cap = &cap;
  const FleetResult same = simulate_fleet(requests, r.cost, capped, {3, Routing::round_robin}, Timing::expected);
  CHECK(same.all.served.size() == whole.all.served.size());
  CHECK(cap.ttft_over == over);
  cap = {};
  cap.ttft = limit;
  cap.ttft_allowed = over - 1;  // one fewer: stopped at the last of them
  CHECK_THROWS_AS(simulate_fleet(requests, r.cost, capped, {3, Routing::round_robin}, Timing::expected), CapReached);
  CHECK(cap.ttft_over == over);
}

TEST_CASE("fleet: one replica is the one-replica simulator exactly, under every router") {
  Replica r;
  r.config.kv_blocks = 300;
  r.config.chunked_prefill = true;
  r.config.max_batched_tokens = 256;
  r.config.speculation = Speculation{3, 0.6};
  const LengthDistribution prompt{LengthDistribution::Kind::uniform, 100, 1500};
  const LengthDistribution gen{LengthDistribution::Kind::uniform, 1, 600};
  const auto requests = generate({}, 8, 60, prompt, gen, 0.3, 16, 5);
  for (const Timing t : {Timing::expected, Timing::bound}) {
    const SimResult one = simulate(requests, r.cost, r.config, t);
    REQUIRE(one.preemptions > 0);
    for (const Routing how : {Routing::round_robin, Routing::random, Routing::least_loaded, Routing::prefix_affinity, Routing::kv_aware}) {
      INFO(name(how));
      check_same(simulate_fleet(requests, r.cost, r.config, {1, how}, t).all, one);
    }
  }
}

TEST_CASE("fleet: prefix-affinity keeps each group's prefix warm on one replica, round robin warms it on each") {
  Replica r;
  // 2000-token prompts, 80% cached: 1600 tokens, held on a replica once it has admitted one of
  // the group's requests. 8 groups over 4 replicas.
  auto requests = generate({}, 20, 30, fixed(2000), fixed(20), 0.8, 16, 4);
  REQUIRE(requests.size() > 400);
  assign_groups(requests, 8, 4);
  const auto n = static_cast<double>(requests.size());
  // Affinity: every group on one replica, its first request cold: 8 cold in all.
  const FleetResult affine = simulate_fleet(requests, r.cost, r.config, {4, Routing::prefix_affinity}, Timing::expected);
  CHECK(affine.all.cached_tokens == 1600 * (n - 8));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (requests[j].group == requests[i].group) {
        CHECK(affine.replica_of[i] == affine.replica_of[j]);
        break;
      }
    }
  }
  // Round robin: each replica sees every group (over 400 requests), 32 cold.
  const FleetResult robin = simulate_fleet(requests, r.cost, r.config, {4, Routing::round_robin}, Timing::expected);
  CHECK(robin.all.cached_tokens == 1600 * (n - 32));
  // Without groups every request finds its prefix wherever it goes.
  auto ungrouped = requests;
  for (Request& q : ungrouped) q.group = 0;
  CHECK(simulate_fleet(ungrouped, r.cost, r.config, {4, Routing::round_robin}, Timing::expected).all.cached_tokens == 1600 * n);
}

TEST_CASE("fleet: random routing repeats with its seed and deals otherwise with another") {
  Replica r;
  const auto requests = generate({}, 50, 10, fixed(100), fixed(5), 0, 16, 2);
  const FleetResult a = simulate_fleet(requests, r.cost, r.config, {4, Routing::random}, Timing::expected);
  const FleetResult again = simulate_fleet(requests, r.cost, r.config, {4, Routing::random}, Timing::expected);
  r.config.seed = 2;
  const FleetResult other = simulate_fleet(requests, r.cost, r.config, {4, Routing::random}, Timing::expected);
  CHECK(a.replica_of == again.replica_of);
  CHECK(a.replica_of != other.replica_of);
  // Every replica drew some of the ~500 requests (each misses all with probability (3/4)^500).
  for (const long k : a.routed) CHECK(k > 0);
}

TEST_CASE("fleet: its samples count every replica's sequences at each sample's time, until all are done") {
  Replica r;
  // Four requests of some seconds at 0, one a replica behind round robin, and a fifth at 0.5 to
  // replica 0: at 1 s five run (max batch 256), none waits.
  std::vector<Request> requests(4, Request{0, 128, 1000, 0});
  requests.push_back({0.5, 128, 1000, 0});
  const FleetResult f = simulate_fleet(requests, r.cost, r.config, {4, Routing::round_robin}, Timing::expected);
  const std::vector<Sample>& s = f.all.samples;
  REQUIRE(s.size() > 2);
  CHECK(s[0].time == 0);
  CHECK(s[0].running == 0);  // taken at 0 before the arrivals at 0 were routed
  CHECK(s[1].time == 1);
  CHECK(s[1].running == 5);
  CHECK(s[1].waiting == 0);
  CHECK(s[1].kv_share > 0);
  CHECK(s[1].kv_share < 0.01);  // a few hundred tokens of 460 000 a replica
  // One a second until the first at or after the last replica finished (at 7.8 s), which finds
  // none running: 0 to 8 s.
  CHECK(s.back().time >= f.all.end);
  CHECK(s.back().running == 0);
  CHECK(s.size() == static_cast<std::size_t>(std::ceil(f.all.end)) + 1);
  CHECK(s[s.size() - 2].running == 5);
  // A sample during a step that finishes a request still counts it running: the last step of a
  // lone request of 2 tokens, sampled every 0.1 ms, ends after the sample before it.
  ServerConfig fine = r.config;
  fine.sample_every = 1e-4;
  const std::vector<Request> two{{0, 128, 2, 0}, {0, 128, 2, 0}};
  const FleetResult g = simulate_fleet(two, r.cost, fine, {2, Routing::round_robin}, Timing::expected);
  const std::vector<Sample>& t = g.all.samples;
  REQUIRE(t.size() > 3);
  CHECK(t[t.size() - 2].time < g.all.end);
  CHECK(t[t.size() - 2].running == 2);
  CHECK(t.back().time >= g.all.end);
  CHECK(t.back().running == 0);
}

TEST_CASE("summary: rates are over the run's window from its first arrival - a trace replayed from second 1000") {
  // The same arrivals shifted 1000 s later serve as many requests over the same window: the rate,
  // the tokens a second and the mean running are the unshifted run's (they were divided by the
  // time since 0, some 1100 s, where the run took 100).
  Md1 r;
  const auto requests = generate({}, 5, 100, fixed(128), fixed(2), 0, 16, 3);
  std::vector<Request> later = requests;
  for (Request& q : later) q.arrival += 1000;
  const Summary a = summarize(r.run(requests), {}), b = summarize(r.run(later), {});
  REQUIRE(a.served == b.served);
  CHECK(b.requests_per_s == Approx(a.requests_per_s).epsilon(1e-9));
  CHECK(b.output_tokens_per_s == Approx(a.output_tokens_per_s).epsilon(1e-9));
  CHECK(b.mean_running == Approx(a.mean_running).epsilon(1e-9));
  // Over 4 replicas as over one.
  const Summary f = summarize(r.fleet(later, 4, Routing::round_robin).all, {});
  CHECK(f.requests_per_s == Approx(a.requests_per_s).epsilon(0.02));
}

TEST_CASE("summary: a request dropped after the last finish does not stretch the makespan - one replica and a fleet") {
  // Llama-3.1-8B (131072 tokens of context) on an H100, chunked: 512 + 10 tokens arrive at 1000 s
  // and finish some 79.6 ms later (a 15 ms prefill, 9 decodes of 7 ms); 200000 + 10 arrive at 1100 s
  // and are dropped as too long. The makespan is first arrival to last finish, 79.6 ms: 10 tokens
  // over it are 126 tokens/s, 12.6 requests/s, one sequence running throughout. The clock had moved
  // to the dropped arrival, and `end` with it: 0.1 tokens/s, 0.01 requests/s, 0.0008 running.
  Replica r;
  r.config.max_context = 131072;
  r.config.chunked_prefill = true;
  const std::vector<Request> requests{{1000, 512, 10, 0}, {1100, 200000, 10, 0}};
  const SimResult one = r.run(requests);
  REQUIRE(one.served.size() == 1);
  REQUIRE(one.dropped_too_long == 1);
  const double e2e = one.served[0].e2e;
  CHECK(e2e == Approx(0.0796).epsilon(0.01));
  CHECK(one.start == 1000);
  CHECK(one.end == Approx(1000 + e2e).epsilon(1e-12));
  const Summary s = summarize(one, {});
  CHECK(s.output_tokens_per_s == Approx(10 / e2e).epsilon(1e-9));
  CHECK(s.requests_per_s == Approx(1 / e2e).epsilon(1e-9));
  CHECK(s.mean_running == Approx(1).epsilon(1e-9));
  // Two replicas, one request each: the one that served none ends where it started, at 1100 s,
  // which is not the fleet's last finish; a replica's mean running is half.
  const FleetResult f = simulate_fleet(requests, r.cost, r.config, {2, Routing::round_robin}, Timing::expected);
  CHECK(f.all.end == Approx(one.end).epsilon(1e-12));
  CHECK(summarize(f.all, {}).output_tokens_per_s == Approx(10 / e2e).epsilon(1e-9));
  CHECK(summarize(f.all, {}).mean_running == Approx(0.5).epsilon(1e-9));
  // Every request dropped: no finish, a window of 0 and no rates.
  const SimResult none = r.run({{1100, 200000, 10, 0}});
  CHECK(none.end == none.start);
  CHECK(summarize(none, {}).output_tokens_per_s == 0);
  CHECK(summarize(none, {}).mean_running == 0);
}
