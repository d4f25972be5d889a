#pragma once
// simulate --requests-out FILE: one row a request of the expected run, in the order they arrived,
// through the report sinks (CSV for .csv, JSON lines for .jsonl), written whole or not at all.
// Its times are on the clock the requests came from: `origin` (Traffic::origin) added to the run's.
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "serve/simulator.hpp"
#include "serve/traffic.hpp"

namespace roofline::cli {

// Refuses a name that is neither .csv nor .jsonl (io::InputError naming --requests-out), before
// any work.
void check_requests_out(const std::string& path);
// replica_of: each request's replica in a fleet, by index (empty: one replica, 0 for each).
// A request no replica took (replica_of's entry): its `replica` cell is empty.
inline constexpr std::uint32_t kNoReplica = 0xFFFFFFFF;

void write_requests_out(const std::string& path, const std::vector<serve::Request>& requests, double origin,
                        const serve::SimResult& run, std::span<const std::uint32_t> replica_of, std::ostream& err);

}  // namespace roofline::cli
