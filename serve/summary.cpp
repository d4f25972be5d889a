#include "serve/summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace roofline::serve {

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double at = p / 100 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Distribution distribution(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return {mean, percentile(values, 50), percentile(values, 90), percentile(values, 99), values.size()};
}

Summary summarize(const SimResult& r, const Targets& targets) {
  Summary s;
  s.served = static_cast<long>(r.served.size());
  s.dropped = r.dropped_too_long + r.dropped_no_room;
  std::vector<double> ttft, tpot, e2e, wait;
  long good = 0;
  for (const Outcome& o : r.served) {
    ttft.push_back(o.ttft);
    if (o.gen > 1) tpot.push_back(o.tpot);
    e2e.push_back(o.e2e);
    wait.push_back(o.queue_wait);
    // One token has no TPOT: judged on TTFT when that is a target too, else not at all.
    if (targets.tpot && o.gen < 2 && !targets.ttft) {
      ++s.unjudged;
      continue;
    }
    const bool ok = (!targets.ttft || o.ttft <= *targets.ttft) && (!targets.tpot || o.gen < 2 || o.tpot <= *targets.tpot);
    good += ok ? 1 : 0;
  }
  s.ttft = distribution(std::move(ttft));
  s.tpot = distribution(std::move(tpot));
  s.e2e = distribution(std::move(e2e));
  s.queue_wait = distribution(std::move(wait));
  s.itl = {r.itl.mean(), r.itl.percentile(50), r.itl.percentile(90), r.itl.percentile(99), r.itl.count()};
  // Over the run's window, from the first arrival: a trace replayed from its 1800th second was
  // said to serve half its arrivals' rate.
  const double window = r.end - r.start;
  if (window > 0) {
    s.output_tokens_per_s = r.output_tokens / window;
    s.requests_per_s = static_cast<double>(s.served) / window;
  }
  // A dropped request met no target, but one of one token is judged as a served one is: under a
  // TPOT target alone it has none to miss. Counted as missing, it made a run whose served requests
  // were all unjudged a goodput of 0%, which adding a TTFT target then raised.
  if (targets.tpot && !targets.ttft) {
    for (const Dropped& d : r.dropped) s.unjudged += d.gen < 2 ? 1 : 0;
  }
  const long judged = s.served + s.dropped - s.unjudged;
  if ((targets.ttft || targets.tpot) && judged > 0) {
    s.goodput = static_cast<double>(good) / static_cast<double>(judged);
  }
  if (window > 0) s.mean_running = r.running_seconds / window;
  s.peak_running = r.peak_running;
  s.peak_kv_share = r.peak_kv_share;
  return s;
}

}  // namespace roofline::serve
