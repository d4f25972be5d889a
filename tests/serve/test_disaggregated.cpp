// Disaggregated serving (issue 25): a request's TTFT is its prefill, the link and the decode
// replica's first step, each worked out alone; its later gaps are the decode replica's steps; a
// link held by one cache makes the next wait; every request is served or dropped once; and a
// decode pool with a replica to spare for each request decodes each alone, so its p99 gap is one
// sequence's step (where a colocated fleet's has prefills in it).
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "replica.hpp"
#include "serve/disaggregated.hpp"
#include "serve/fleet.hpp"
#include "serve/kv_link.hpp"
#include "serve/summary.hpp"

using namespace roofline;
using namespace roofline::serve;

namespace {

using test::fixed;
using test::Replica;

// A link holding each cache 2 µs a prompt token, then 5 µs of latency.
LinkTime per_token(long prompt) { return {2e-6 * static_cast<double>(prompt), 5e-6}; }

DisaggregatedConfig pools(std::size_t p, std::size_t d, Routing how, std::function<LinkTime(long)> link = per_token) {
  return {p, d, how, std::move(link)};
}

}  // namespace

TEST_CASE("disaggregated: one request's TTFT is its prefill, the link and the decode replica's first step") {
  Replica r;
  const long prompt = 1000, gen = 5;
  // Alone on a replica, a request of one token is its prefill step: its TTFT is the prefill time.
  const double prefill = r.run({{0, prompt, 1, 0}}).served.at(0).ttft;
  // Alone, a request holding all its prompt's cache but the last token computes that token in
  // its first step (its TTFT there) and then decodes one token a step (its TPOT).
  const Outcome decode = r.run({{0, prompt, gen, prompt - 1}}).served.at(0);
  const DisaggregatedResult out = r.disaggregate({{0, prompt, gen, 0}}, pools(1, 1, Routing::round_robin));
  REQUIRE(out.all.served.size() == 1);
  const Outcome& o = out.all.served[0];
  const Handoff& h = out.handoffs[0];
  INFO("prefill " << prefill << " s, first decode step " << decode.ttft << " s, decode gap " << decode.tpot << " s");
  // 8B on an H100: a 1000-token prefill 26.60 ms, the decode replica's first step (one token at
  // context 999) 7.30 ms, its gaps 7.15 ms; the link 1000 x 2 µs + 5 µs = 2.005 ms: TTFT 35.91 ms.
  CHECK(h.prefill_end == Approx(prefill));
  CHECK(h.sent == h.prefill_end);  // nothing else on the link
  CHECK(h.landed == Approx(prefill + 0.002005));
  CHECK(o.queue_wait == 0);
  CHECK(o.ttft == Approx(prefill + 0.002005 + decode.ttft));
  CHECK(o.tpot == Approx(decode.tpot));
  CHECK(o.e2e == Approx(prefill + 0.002005 + decode.e2e));
  // Every gap the client sees is a decode step: gen − 1 of them, each the TPOT.
  CHECK(out.all.itl.count() == gen - 1);
  CHECK(out.all.itl.mean() == Approx(decode.tpot));
  // The prefill pool's request ended with its first token; the decode pool's began as the
  // prefill ended, its blocks reserved at once, and waited for its cache: 2.005 ms.
  CHECK(out.prefill.served.at(0).ttft == Approx(prefill));
  CHECK(h.reserved == h.prefill_end);
  CHECK(out.decode.served.at(0).queue_wait == Approx(0.002005));
  CHECK(out.all.output_tokens == gen);
  CHECK(out.prefill_routed == std::vector<long>{1});
  CHECK(out.decode_routed == std::vector<long>{1});
}

TEST_CASE("disaggregated: a slow link makes each cache wait for the one before, on the sender's side and on the receiver's") {
  Replica r;
  // Half a second a cache on the link, no latency; five requests 10 ms apart, whose prefills of
  // 128 tokens take a few ms each: every cache is ready long before the link is free.
  const auto slow = [](long) { return LinkTime{0.5, 0}; };
  std::vector<Request> requests;
  for (int i = 0; i < 5; ++i) requests.push_back({0.01 * i, 128, 2, 0});
  SECTION("one prefill replica sending to two decode replicas: its link is the queue") {
    const DisaggregatedResult out = r.disaggregate(requests, pools(1, 2, Routing::round_robin, slow));
    REQUIRE(out.all.served.size() == 5);
    for (std::size_t k = 1; k < 5; ++k) {
      // Sent when the one before has gone: 0.5 s later each, though its prefill ended 10 ms after.
      CHECK(out.handoffs[k].sent == Approx(out.handoffs[k - 1].sent + 0.5));
      CHECK(out.handoffs[k].sent - out.handoffs[k].prefill_end > 0.45 * static_cast<double>(k));
    }
    const HandoffTimes t = handoff_times(requests, out);
    // Link waits of about 0, 0.49, 0.98, 1.47 and 1.96 s: a mean near 0.98.
    CHECK(distribution(t.link_wait).mean == Approx(0.98).epsilon(0.02));
    // The last request's TTFT holds four transfers' waits and its own: it lands 5 x 0.5 s after
    // the first prefill ended (a few ms in), arrived 40 ms in, and its first decode step takes
    // some 7 ms more: about 2.47 s.
    const auto last = std::find_if(out.all.served.begin(), out.all.served.end(), [](const Outcome& o) { return o.request == 4; });
    CHECK(out.handoffs[4].landed == Approx(out.handoffs[0].prefill_end + 2.5));
    CHECK(last->ttft > 2.45);
    CHECK(last->ttft < 2.5);
    CHECK(out.link_utilisation() > 0.5);
  }
  SECTION("two prefill replicas sending to one decode replica: its link is the queue") {
    const DisaggregatedResult out = r.disaggregate(requests, pools(2, 1, Routing::round_robin, slow));
    REQUIRE(out.all.served.size() == 5);
    CHECK(out.handoffs[0].prefill_replica != out.handoffs[1].prefill_replica);
    for (std::size_t k = 1; k < 5; ++k) CHECK(out.handoffs[k].sent == Approx(out.handoffs[k - 1].sent + 0.5));
  }
}

TEST_CASE("disaggregated: every request is served or dropped exactly once, under every router") {
  Replica r;
  r.config.kv_blocks = 150;  // 2400 tokens: a request past them dropped, never prefilled
  r.config.max_context = 3000;
  const LengthDistribution prompt{LengthDistribution::Kind::lognormal, 1200, 1.0};
  const LengthDistribution gen{LengthDistribution::Kind::lognormal, 200, 1.0};
  auto requests = generate({}, 40, 20, prompt, gen, 0.3, 16, 9);
  assign_groups(requests, 8, 9);
  for (const bool at_arrival : {false, true})
  for (const Routing how : {Routing::round_robin, Routing::random, Routing::least_loaded, Routing::prefix_affinity, Routing::kv_aware}) {
    DisaggregatedConfig c = pools(2, 3, how);
    c.reserve_at_arrival = at_arrival;
    const DisaggregatedResult out = r.disaggregate(requests, c);
    std::vector<std::size_t> seen;
    for (const Outcome& o : out.all.served) seen.push_back(o.request);
    for (const Dropped& d : out.all.dropped) seen.push_back(d.request);
    std::sort(seen.begin(), seen.end());
    std::vector<std::size_t> all(requests.size());
    std::iota(all.begin(), all.end(), 0);
    INFO(name(how) << (at_arrival ? ", reserving at arrival" : "") << ": served " << out.all.served.size() << ", dropped "
                   << out.all.dropped.size());
    CHECK(seen == all);
    CHECK(out.all.dropped_too_long + out.all.dropped_no_room == static_cast<long>(out.all.dropped.size()));
    CHECK(out.all.dropped_too_long > 0);
    CHECK(out.all.dropped_no_room > 0);
    CHECK(std::accumulate(out.prefill_routed.begin(), out.prefill_routed.end(), 0L) ==
          std::accumulate(out.decode_routed.begin(), out.decode_routed.end(), 0L));
    // Each served request's times in order: arrival, prefill ending, sent, landed, first token;
    // its blocks reserved after the prefill ended, or (SGLang) before it began.
    for (const Outcome& o : out.all.served) {
      const Handoff& h = out.handoffs[o.request];
      CHECK(requests[o.request].arrival < h.prefill_end);
      CHECK(h.prefill_end <= h.sent);
      if (at_arrival) {
        CHECK(h.queued == requests[o.request].arrival);
        // Its first prefill step: after the reservation, before the prefill's end.
        const double first_step = requests[o.request].arrival + o.queue_wait;
        CHECK(first_step >= h.reserved - 1e-12);
        CHECK(first_step < h.prefill_end);
      } else {
        CHECK(h.queued == h.prefill_end);
        CHECK(h.reserved >= h.prefill_end);
      }
      CHECK(h.reserved <= h.sent);
      CHECK(h.sent < h.landed);
      CHECK(requests[o.request].arrival + o.ttft > h.landed);
    }
  }
}

TEST_CASE("disaggregated: with a decode replica to spare for each request, the p99 gap is one sequence's step") {
  Replica r;
  // 20 requests/s of 512 prompt and 16 output tokens: some 2 in the decode pool at a time, spread
  // by least-loaded over 64 decode replicas, so each decodes alone.
  const auto requests = generate({}, 20, 30, fixed(512), fixed(16), 0, 16, 4);
  const DisaggregatedResult out = r.disaggregate(requests, pools(2, 64, Routing::least_loaded));
  REQUIRE(out.all.served.size() == requests.size());
  // One sequence decoding alone from 512 to 527 tokens: its p99 gap 7.12 ms at 8B on an H100, and
  // the decode pool's the same (the histogram's bins: within 0.6%).
  const SimResult alone = r.run({{0, 512, 16, 0}});
  const Summary s = summarize(out.all, {});
  INFO("p99 gap " << s.itl.p99 << " s, one sequence's " << alone.itl.percentile(99) << " s");
  CHECK(s.itl.p99 == Approx(alone.itl.percentile(99)).epsilon(0.01));
  // A colocated fleet of four at the same rate runs prefills in its decodes' steps: its p99 gap
  // holds one, 16.1 ms.
  const Summary colocated =
      summarize(simulate_fleet(requests, r.cost, r.config, {4, Routing::least_loaded}, Timing::expected).all, {});
  INFO("colocated p99 gap " << colocated.itl.p99 << " s");
  CHECK(colocated.itl.p99 > 1.5 * s.itl.p99);
}

TEST_CASE("disaggregated: the link is priced from the model's cache and the GPU's interconnect") {
  Replica r;
  const KvLink link = kv_link(r.model, r.gpu, r.base);
  CHECK_FALSE(link.network);  // two one-GPU replicas fit one NVLink domain
  // Llama-3.1-8B's cache: 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes = 131072 bytes a
  // token; 1000 tokens 131 MB over the H100's 450 GB/s a direction: 291 µs, then its latency.
  const LinkTime t = link.time(1000);
  CHECK(t.busy == Approx(131072000.0 / r.gpu.interconnect->bandwidth.value()));
  CHECK(t.latency == Approx(r.gpu.interconnect->latency.value()));
  CHECK(link.time(1000).busy == t.busy);  // remembered
}

TEST_CASE("disaggregated: a pool without replicas, a missing link or speculation is refused") {
  Replica r;
  const std::vector<Request> one{{0, 100, 2, 0}};
  CHECK_THROWS_AS(r.disaggregate(one, pools(0, 1, Routing::round_robin)), std::invalid_argument);
  CHECK_THROWS_AS(r.disaggregate(one, pools(1, 0, Routing::round_robin)), std::invalid_argument);
  CHECK_THROWS_AS(r.disaggregate(one, {1, 1, Routing::round_robin, nullptr}), std::invalid_argument);
  r.config.speculation = Speculation{2, 0.7};
  CHECK_THROWS_AS(r.disaggregate(one, pools(1, 1, Routing::round_robin)), std::invalid_argument);
}

TEST_CASE("disaggregated: a decode replica's preempted request recomputes its whole prompt, its landed cache freed") {
  // Two requests of 20 prompt and 36 output tokens, a cache of 5 blocks of 16 tokens on every
  // replica. Each lands on the decode replica with 19 tokens cached and takes 2 blocks (1 free).
  // The first admitted takes the last block at its 33rd token; the second, needing its third
  // block there too, is preempted with 32 tokens computed, 13 generated: its 20 + 13 = 33
  // tokens are recomputed once the first has finished (3 blocks, 2 free until then). vLLM's
  // decode worker recomputes the prompt locally: the 33 tokens, not the 13 + 1 past the cache
  // that had crossed the link. Counted: prefilled 1 + 1 + 33, less the 40 - 38 not cached.
  Replica r;
  r.config.kv_blocks = 5;
  r.config.block_tokens = 16;
  r.config.max_batch = 64;
  const std::vector<Request> requests{{0, 20, 36, 0}, {0, 20, 36, 0}};
  const DisaggregatedResult out = r.disaggregate(requests, pools(1, 1, Routing::round_robin));
  REQUIRE(out.all.served.size() == 2);
  CHECK(out.prefill.preemptions == 0);
  CHECK(out.decode.preemptions == 1);
  CHECK(out.decode.recomputed_tokens == 33);
  CHECK(out.decode.recomputed_tokens >= 20);  // at least the prompt
}

TEST_CASE("disaggregated: a decode pool short of blocks holds the request before its transfer, and blocks on the link count") {
  // One replica a pool, the decode replica's cache 4 blocks of 16 tokens (the prefill replica's
  // 1000, so both prompts prefill in one step). A (20 prompt, 2 output tokens) and B
  // (40 prompt, 2 output) arrive together and are prefilled in one step, ending at e. Their
  // caches need 2 and 3 blocks on the decode replica (20 and 40 tokens; at most 21 and 41 with
  // their output: 2 and 3 blocks). Half a second a cache on the link.
  //   A reserves 2 blocks at e, is sent at e and lands at e + 0.5 s; B needs 3 of the 2 left:
  //   A's blocks count though its cache is still on the link, so B waits at the queue's head.
  //   A runs two steps from e + 0.5 (its last prompt token, then one decode) and finishes at F,
  //   freeing its blocks; B reserves 3 at F, is sent then (the links free since e + 0.5) and
  //   lands at F + 0.5 s.
  Replica r;
  r.config.kv_blocks = 4;
  r.config.block_tokens = 16;
  const auto slow = [](long) { return LinkTime{0.5, 0}; };
  const std::vector<Request> requests{{0, 20, 2, 0}, {0, 40, 2, 0}};
  DisaggregatedConfig two = pools(1, 1, Routing::round_robin, slow);
  two.prefill_kv_blocks = 1000;
  SECTION("4 blocks: B's transfer waits for A to finish") {
    const DisaggregatedResult out = r.disaggregate(requests, two);
    REQUIRE(out.all.served.size() == 2);
    const Handoff& a = out.handoffs[0];
    const Handoff& b = out.handoffs[1];
    CHECK(a.prefill_end == b.prefill_end);
    CHECK(a.reserved == a.prefill_end);
    CHECK(a.sent == a.reserved);
    CHECK(a.landed == Approx(a.prefill_end + 0.5));
    const auto finish = [&](std::size_t i) {
      for (const Outcome& o : out.all.served) {
        if (o.request == i) return requests[i].arrival + o.e2e;
      }
      return -1.0;
    };
    const double f = finish(0);
    INFO("e " << a.prefill_end << " s, A finished " << f << " s, B reserved " << b.reserved << " s");
    // A's two steps after landing: some 7 ms each at 8B on an H100.
    CHECK(f > a.landed + 0.01);
    CHECK(f < a.landed + 0.03);
    CHECK(b.reserved == Approx(f));
    CHECK(b.sent == b.reserved);  // the links were free: the wait was for blocks
    CHECK(b.landed == Approx(f + 0.5));
    const HandoffTimes t = handoff_times(requests, out);
    // Block waits 0 (A) and F − e (B), link waits 0 and 0.
    CHECK(*std::max_element(t.block_wait.begin(), t.block_wait.end()) == Approx(f - a.prefill_end));
    CHECK(*std::max_element(t.link_wait.begin(), t.link_wait.end()) == 0);
    CHECK(finish(1) > f + 0.5);
  }
  SECTION("5 blocks: both reserved at e, B's transfer waits for the link instead") {
    r.config.kv_blocks = 5;
    const DisaggregatedResult out = r.disaggregate(requests, two);
    REQUIRE(out.all.served.size() == 2);
    const Handoff& a = out.handoffs[0];
    const Handoff& b = out.handoffs[1];
    CHECK(b.reserved == a.prefill_end);
    CHECK(b.sent == Approx(a.prefill_end + 0.5));  // after A's transfer, one at a time
    CHECK(b.landed == Approx(a.prefill_end + 1.0));
  }
}

TEST_CASE("disaggregated, reserving at arrival (SGLang): a request alone reserves at once, then prefills, as before") {
  Replica r;
  const long prompt = 1000, gen = 5;
  const double prefill = r.run({{0, prompt, 1, 0}}).served.at(0).ttft;
  const Outcome decode = r.run({{0, prompt, gen, prompt - 1}}).served.at(0);
  DisaggregatedConfig c = pools(1, 1, Routing::round_robin);
  c.reserve_at_arrival = true;
  const DisaggregatedResult out = r.disaggregate({{0, prompt, gen, 0}}, c);
  REQUIRE(out.all.served.size() == 1);
  const Handoff& h = out.handoffs[0];
  const Outcome& o = out.all.served[0];
  // Queued and reserved at its arrival by an idle decode replica, then the same path as the
  // first test's: the prefill, the link's 2.005 ms, the decode replica's first step.
  CHECK(h.queued == 0);
  CHECK(h.reserved == 0);
  CHECK(h.prefill_end == Approx(prefill));
  CHECK(h.sent == h.prefill_end);
  CHECK(o.queue_wait == 0);
  CHECK(o.ttft == Approx(prefill + 0.002005 + decode.ttft));
  CHECK(o.tpot == Approx(decode.tpot));
  // The decode replica held it from its arrival: its queue wait spans the prefill and the link.
  CHECK(out.decode.served.at(0).queue_wait == Approx(prefill + 0.002005));
  const HandoffTimes t = handoff_times({{0, prompt, gen, 0}}, out);
  CHECK(t.block_wait.at(0) == 0);
  CHECK(t.decode_wait.at(0) == Approx(0).margin(1e-12));
}

TEST_CASE("disaggregated, reserving at arrival (SGLang): a decode pool short of blocks holds the prefill, not the transfer") {
  // The 4-block case above, SGLang's way. A (20 tokens, 2 blocks) and B (40 tokens, 3 blocks)
  // arrive at 0; the decode replica reserves A's 2 at 0 and B waits at its queue's head. A
  // prefills alone from 0 to p_A, crosses the link in 0.5 s, runs two steps and finishes at F,
  // freeing its blocks; B is reserved at F, and only then prefills (p_B alone), so its cache
  // lands at F + p_B + 0.5 s. Reserved after its prefill instead (vLLM), B prefilled beside A
  // at 0 and waited for blocks with its cache computed.
  Replica r;
  r.config.kv_blocks = 4;
  r.config.block_tokens = 16;
  const auto slow = [](long) { return LinkTime{0.5, 0}; };
  const std::vector<Request> requests{{0, 20, 2, 0}, {0, 40, 2, 0}};
  const double p_a = r.run({{0, 20, 1, 0}}).served.at(0).ttft, p_b = r.run({{0, 40, 1, 0}}).served.at(0).ttft;
  DisaggregatedConfig c = pools(1, 1, Routing::round_robin, slow);
  c.prefill_kv_blocks = 1000;
  c.reserve_at_arrival = true;
  const DisaggregatedResult out = r.disaggregate(requests, c);
  REQUIRE(out.all.served.size() == 2);
  const Handoff& a = out.handoffs[0];
  const Handoff& b = out.handoffs[1];
  CHECK(a.reserved == 0);
  CHECK(a.prefill_end == Approx(p_a));
  CHECK(a.landed == Approx(p_a + 0.5));
  double f = -1;
  for (const Outcome& o : out.all.served) {
    if (o.request == 0) f = o.e2e;
  }
  INFO("p_A " << p_a << " s, p_B " << p_b << " s, A finished " << f << " s, B reserved " << b.reserved << " s");
  CHECK(f > a.landed + 0.01);  // A's two steps after landing: some 7 ms each
  CHECK(f < a.landed + 0.03);
  CHECK(b.reserved == Approx(f));
  CHECK(b.prefill_end == Approx(f + p_b));
  CHECK(b.sent == b.prefill_end);
  CHECK(b.landed == Approx(f + p_b + 0.5));
  // The client's queue wait for B is its wait for the blocks: its prefill began when they came.
  for (const Outcome& o : out.all.served) {
    if (o.request == 1) CHECK(o.queue_wait == Approx(f));
  }
  const HandoffTimes t = handoff_times(requests, out);
  CHECK(*std::max_element(t.block_wait.begin(), t.block_wait.end()) == Approx(f));
  CHECK(*std::max_element(t.link_wait.begin(), t.link_wait.end()) == 0);
}

TEST_CASE("disaggregated, reserving at arrival (SGLang): the links go by when prefills end, not by when their steps began") {
  // Two prefill replicas, one decode replica, 2 µs a token on the link. L (8000 tokens, one
  // unchunked step of some 0.2 s) arrives at 0, S (100 tokens, a few ms) 1 ms later on the other
  // prefill replica. S's prefill ends long before L's, so its cache goes at once, though L's step
  // began first; L's goes when its own ends, the link long free again.
  Replica r;
  const std::vector<Request> requests{{0, 8000, 2, 0}, {0.001, 100, 2, 0}};
  DisaggregatedConfig c = pools(2, 1, Routing::round_robin);
  c.reserve_at_arrival = true;
  const DisaggregatedResult out = r.disaggregate(requests, c);
  REQUIRE(out.all.served.size() == 2);
  const Handoff& l = out.handoffs[0];
  const Handoff& sh = out.handoffs[1];
  INFO("L's prefill ends " << l.prefill_end << " s, S's " << sh.prefill_end << " s, S sent " << sh.sent << " s");
  CHECK(l.prefill_replica != sh.prefill_replica);
  CHECK(sh.prefill_end < l.prefill_end);
  CHECK(sh.sent == sh.prefill_end);
  CHECK(sh.landed == Approx(sh.prefill_end + 100 * 2e-6 + 5e-6));
  CHECK(l.sent == l.prefill_end);
  const HandoffTimes t = handoff_times(requests, out);
  CHECK(*std::max_element(t.link_wait.begin(), t.link_wait.end()) == 0);
}

TEST_CASE("disaggregated, reserving at arrival (SGLang): reservations made together reach the prefill replica together") {
  // A and B arrive at 0 on two decode replicas, both idle: each reserves at 0, so the one prefill
  // replica holds both at 0 and prefills them in one step, as it would two prompts arriving at 0.
  Replica r;
  const std::vector<Request> requests{{0, 500, 2, 0}, {0, 500, 2, 0}};
  DisaggregatedConfig c = pools(1, 2, Routing::round_robin);
  c.reserve_at_arrival = true;
  const DisaggregatedResult out = r.disaggregate(requests, c);
  REQUIRE(out.all.served.size() == 2);
  const Handoff& a = out.handoffs[0];
  const Handoff& b = out.handoffs[1];
  CHECK(a.decode_replica != b.decode_replica);
  CHECK(a.reserved == 0);
  CHECK(b.reserved == 0);
  const double together = r.run({{0, 500, 1, 0}, {0, 500, 1, 0}}).served.at(0).ttft;
  CHECK(a.prefill_end == Approx(together));
  CHECK(b.prefill_end == Approx(together));
}

TEST_CASE("disaggregated, reserving at arrival (SGLang): a prompt the prefill replica could never hold is dropped there, never reserved") {
  // A decode replica of 1000 blocks takes 20 000 tokens; a prefill replica of 10 blocks (160
  // tokens) never holds a 200-token prompt, whose reservation would then wait for ever: its
  // prefill replica takes and drops it at once, and no decode replica hears of it.
  Replica r;
  r.config.block_tokens = 16;
  r.config.kv_blocks = 1000;
  DisaggregatedConfig c = pools(1, 1, Routing::round_robin);
  c.prefill_kv_blocks = 10;
  c.reserve_at_arrival = true;
  const DisaggregatedResult out = r.disaggregate({{0, 100, 4, 0}, {0.001, 200, 4, 0}}, c);
  REQUIRE(out.all.served.size() == 1);
  CHECK(out.all.served[0].request == 0);
  REQUIRE(out.all.dropped.size() == 1);
  CHECK(out.all.dropped[0].request == 1);
  CHECK(out.all.dropped_no_room == 1);
  CHECK(out.prefill_routed == std::vector<long>{2});
  CHECK(out.decode_routed == std::vector<long>{1});
}

TEST_CASE("disaggregated: a prefill replica holds a request's blocks until its cache has crossed the link") {
  // A prefill replica of 10 blocks of 16 tokens; A and B, 100-token prompts (7 blocks each with
  // their one output token), arrive at 0; half a second a cache on the link. A prefills alone
  // (B's 7 blocks are not free) and ends at p; its cache is sent at p and read from its blocks
  // until p + 0.5 s, which frees them (vLLM's and TensorRT-LLM's prefill workers hold them so);
  // only then does B prefill, ending at p + 0.5 + p. Either order of reservation: the decode
  // replica has blocks to spare, so each reserves at once.
  Replica r;
  r.config.block_tokens = 16;
  r.config.kv_blocks = 1000;
  const auto slow = [](long) { return LinkTime{0.5, 0}; };
  const std::vector<Request> requests{{0, 100, 2, 0}, {0, 100, 2, 0}};
  const double p = r.run({{0, 100, 1, 0}}).served.at(0).ttft;
  for (const bool at_arrival : {false, true}) {
    DisaggregatedConfig c = pools(1, 1, Routing::round_robin, slow);
    c.prefill_kv_blocks = 10;
    c.reserve_at_arrival = at_arrival;
    const DisaggregatedResult out = r.disaggregate(requests, c);
    INFO((at_arrival ? "reserving at arrival" : "reserving after the prefill") << ": p " << p << " s");
    REQUIRE(out.all.served.size() == 2);
    const Handoff& a = out.handoffs[0];
    const Handoff& b = out.handoffs[1];
    CHECK(a.prefill_end == Approx(p));
    CHECK(a.sent == Approx(p));
    CHECK(b.prefill_end == Approx(p + 0.5 + p));
  }
}

TEST_CASE("disaggregated: a prefill replica whose blocks wait on a full decode replica waits with them") {
  // Reserved after the prefill (vLLM). The prefill replica holds one 100-token prompt at a time
  // (10 blocks of 16; 7 each), the decode replica one request (9 blocks). C (100 + 40 tokens)
  // prefills first and decodes 40 tokens, ending at F; A prefills next and ends long before F,
  // but no decode block is free for it: its prefill blocks stay held, with no release time yet,
  // and B waits at the prefill replica's queue head for them. At F the decode replica reserves
  // A's blocks and sends A's cache (0.2 ms), which frees A's prefill blocks: only then does B
  // prefill (p, alone). Every request is served once.
  Replica r;
  r.config.block_tokens = 16;
  r.config.kv_blocks = 9;
  const std::vector<Request> requests{{0, 100, 40, 0}, {0.001, 100, 2, 0}, {0.001, 100, 2, 0}};
  const double p = r.run({{0, 100, 1, 0}}).served.at(0).ttft;
  DisaggregatedConfig c = pools(1, 1, Routing::round_robin);
  c.prefill_kv_blocks = 10;
  const DisaggregatedResult out = r.disaggregate(requests, c);
  REQUIRE(out.all.served.size() == 3);
  CHECK(out.all.dropped.empty());
  double f = -1;
  for (const Outcome& o : out.all.served) {
    if (o.request == 0) f = o.e2e;
  }
  const Handoff& a = out.handoffs[1];
  const Handoff& b = out.handoffs[2];
  INFO("p " << p << " s, C finished " << f << " s, A's prefill ended " << a.prefill_end << " s, A reserved " << a.reserved
            << " s, B's prefill ended " << b.prefill_end << " s");
  CHECK(a.prefill_end < 0.1);
  CHECK(f > 0.25);  // 40 decode steps of some 7 ms
  CHECK(a.reserved == Approx(f));
  CHECK(a.sent == Approx(f));
  CHECK(b.prefill_end == Approx(f + 100 * 2e-6 + p));
}

TEST_CASE("disaggregated: pools of different tp reshard the cache, the links held for the larger shard") {
  Replica r;
  // Llama-3.1-8B's cache, 131 072 bytes a token (8 KV heads, each layout holding them once up to
  // tp 8): 1000 tokens 131 MB.
  Workload one = r.base, two = r.base, four = r.base, eight = r.base;
  one.tp = 1;
  two.tp = 2;
  four.tp = 4;
  eight.tp = 8;
  const double bytes = 131072000.0;
  const double nvlink = r.gpu.interconnect->bandwidth.value(), nic = r.gpu.network->bandwidth.value();
  SECTION("prefill at tp 1 to decode at tp 2: the prefill GPU sends all of it, 291 µs over NVLink") {
    const KvLink link = kv_link(r.model, r.gpu, one, two);
    CHECK_FALSE(link.network);  // 3 GPUs in one domain of 8
    CHECK(link.time(1000).busy == Approx(bytes / nvlink));
    CHECK(link.time(1000).latency == Approx(r.gpu.interconnect->latency.value()));
  }
  SECTION("prefill at tp 2 to decode at tp 1: the decode GPU receives all of it, the same time") {
    CHECK(kv_link(r.model, r.gpu, two, one).time(1000).busy == Approx(bytes / nvlink));
  }
  SECTION("prefill at tp 4 to decode at tp 8: 12 GPUs past the domain of 8, the network; a quarter each") {
    // 131 MB / 4 = 32.8 MB over a 50 GB/s NIC: 655 µs, then the NIC's 10 µs.
    const KvLink link = kv_link(r.model, r.gpu, four, eight);
    CHECK(link.network);
    CHECK(link.time(1000).busy == Approx(bytes / 4 / nic));
    CHECK(link.time(1000).latency == Approx(r.gpu.network->latency.value()));
  }
  SECTION("equal layouts price as one layout does") {
    CHECK(kv_link(r.model, r.gpu, two, two).time(1000).busy == kv_link(r.model, r.gpu, two).time(1000).busy);
  }
}

TEST_CASE("disaggregated: a prefill pool of its own layout runs on its own step cost") {
  // The prefill pool at tp 2 (its own StepCost) beside a decode pool at tp 1: the request's
  // prefill ends when a tp 2 replica alone would end it.
  Replica r;
  Workload two = r.base;
  two.tp = 2;
  serve::StepCost prefill_cost(r.model, r.gpu, two);
  const std::vector<Request> one{{0, 1000, 5, 0}};
  const double at_two = simulate(std::vector<Request>{{0, 1000, 1, 0}}, prefill_cost, r.config, Timing::expected).served.at(0).ttft;
  const double at_one = r.run({{0, 1000, 1, 0}}).served.at(0).ttft;
  DisaggregatedConfig c = pools(1, 1, Routing::round_robin);
  c.prefill_cost = &prefill_cost;
  const DisaggregatedResult out = r.disaggregate(one, c);
  REQUIRE(out.all.served.size() == 1);
  INFO("prefill at tp 1 " << at_one << " s, at tp 2 " << at_two << " s");
  CHECK(at_two < at_one);
  CHECK(out.handoffs[0].prefill_end == Approx(at_two));
}

TEST_CASE("disaggregated: under dp-attention a cache lands its whole time later, holding the replica's 8 links an eighth of it") {
  // DeepSeek-V3 at tp 8, ep 8, dp-attention on H100s: 4096 tokens · 576 · 61 · 2 bytes =
  // 287,834,112 bytes on one rank, sent over its own 50 GB/s NIC (16 GPUs leave the domain):
  // 5.757 ms + 10 us from its sending to its landing; the replica's eight ranks send eight at once,
  // so a cache holds their pooled links for 5.757 / 8 = 0.720 ms.
  const ModelSpec m = test::deepseek_v3();
  const Workload w = test::expert_parallel_8(m, true);
  const KvLink link = kv_link(m, test::h100_sxm(), w);
  CHECK(link.network);
  const LinkTime t = link.time(4096);
  const double whole = 287834112.0 / 50e9;
  CHECK(t.busy == Approx(whole / 8));
  CHECK(t.busy + t.latency == Approx(whole + 10e-6));
}

TEST_CASE("disaggregated: a pair of replicas leaving the domain of a GPU with no network is refused") {
  // L4 (PCIe, 8 a host, no `network:`): two tp 8 replicas are 16 GPUs; a tp 4 prefill beside a
  // tp 8 decode 12. Neither is priced over PCIe as if in one box.
  const ModelSpec m = test::llama_3_1_8b();
  Workload four = test::default_workload(m), eight = four;
  four.tp = 4;
  eight.tp = 8;
  CHECK_THROWS_WITH(kv_link(m, test::l4(), eight), Catch::Matchers::Contains("network"));
  CHECK_THROWS_WITH(kv_link(m, test::l4(), four, eight), Catch::Matchers::Contains("12 GPUs"));
  CHECK_NOTHROW(kv_link(m, test::l4(), four));
}
