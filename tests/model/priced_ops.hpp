#pragma once
// A phase's operators by name, with their expected times: what the kernel-class tests read an
// operator's price from (test_kernel_classes, test_experts_class, test_latent_delta_net_classes).
#include <catch2/catch.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

#include "model/phase.hpp"

namespace roofline::test {

struct Priced {
  const PhaseResult& phase;
  std::vector<Seconds> expected;
  [[nodiscard]] std::size_t at(std::string_view name) const {
    for (std::size_t i = 0; i < phase.ops.size(); ++i) {
      if (phase.ops[i].cost.name == name) return i;
    }
    FAIL("no operator " << name);
    return 0;
  }
  [[nodiscard]] double seconds(std::string_view name) const { return expected[at(name)].value(); }
};

}  // namespace roofline::test
