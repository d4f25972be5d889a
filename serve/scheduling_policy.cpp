#include "serve/scheduling_policy.hpp"

#include "serve/simulator.hpp"

namespace roofline::serve {

std::unique_ptr<SchedulingPolicy> make_policy(const ServerConfig& config) {
  return config.reserve_whole ? reserve_policy(config.max_tokens, config.max_context) : recompute_policy();
}

}  // namespace roofline::serve
