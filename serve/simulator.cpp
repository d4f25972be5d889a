#include "serve/simulator.hpp"

#include <stdexcept>

#include "serve/server.hpp"

namespace roofline::serve {

void check_server(const ServerConfig& config) {
  if (config.kv_blocks <= 0 || config.block_tokens <= 0 || config.max_batch <= 0 || config.max_batched_tokens <= 0) {
    throw std::invalid_argument("simulate: the server needs a cache, a batch and a token budget");
  }
}

SimResult simulate(const std::vector<Request>& requests, StepCost& cost, const ServerConfig& config, Timing timing,
                   StepCost* draft) {
  check_server(config);
  Server server(requests, cost, config, timing, draft);
  for (std::size_t i = 0; i < requests.size(); ++i) server.take(i);
  server.run();
  return server.finish();
}

}  // namespace roofline::serve
