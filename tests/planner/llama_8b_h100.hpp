#pragma once
// Llama-3.1-8B on an H100, planned steadily for one load: the fleets the planner's tests size and
// check. Its steady plan points at its own GPU, so it is neither copied nor moved; a test names its
// parts with a structured binding (`const auto& [m, g, t, steady] = c;`).
#include "planner/scenario.hpp"
#include "specs.hpp"

namespace roofline::test {

struct Llama8bOnH100 {
  struct Load {
    double requests_per_s;
    Seconds ttft, tpot;
    long prompt_tokens, gen_tokens;
    bool disaggregate = false;
  };
  explicit Llama8bOnH100(const Load& load) {
    t.requests_per_s = load.requests_per_s;
    t.ttft = load.ttft;
    t.tpot = load.tpot;
    t.disaggregate = load.disaggregate;
    Workload w = default_workload(m);
    w.prompt_tokens = load.prompt_tokens;
    w.gen_tokens = load.gen_tokens;
    steady = {&g, w, plan_capacity(m, g, w, t), "", std::nullopt, std::nullopt, {}};
  }
  Llama8bOnH100(const Llama8bOnH100&) = delete;
  Llama8bOnH100& operator=(const Llama8bOnH100&) = delete;

  ModelSpec m = llama_3_1_8b();
  GpuSpec g = h100_sxm();
  LoadTarget t;
  planner::SteadyPlan steady;
};

}  // namespace roofline::test
