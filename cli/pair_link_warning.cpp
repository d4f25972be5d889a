#include "cli/pair_link_warning.hpp"

#include <fmt/format.h>

#include "report/human_units.hpp"

namespace roofline::cli {

std::optional<std::string> pair_link_warning(const GpuSpec& g, long fleet, std::string_view whose,
                                             std::optional<Seconds> priced, Bytes shard) {
  if (!g.interconnect || fleet <= g.interconnect->domain) return std::nullopt;
  const std::string across = g.network ? fmt::format("over the network in {}",
                                                     report::human(shard / g.network->bandwidth + g.network->latency))
                                       : "between domains, over a network its description does not name";
  return fmt::format("the KV cache's trip between the pools is priced over the interconnect{}, as a prefill and a "
                     "decode replica paired in one {}-GPU domain; {} {} GPUs span more than one, and a cache sent "
                     "between domains (a router pairing replicas across them) goes {}",
                     priced ? fmt::format(" ({})", report::human(*priced)) : "", g.interconnect->domain, whose, fleet,
                     across);
}

}  // namespace roofline::cli
