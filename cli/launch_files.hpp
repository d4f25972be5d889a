#pragma once
// plan --emit: each ranked row that meets the targets as the script that runs it on a serving
// engine (launch/), written whole into --emit-dir.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "launch/launch_spec.hpp"
#include "model/capacity_plan.hpp"
#include "model/model_spec.hpp"
#include "model/workload.hpp"

namespace roofline::cli {

struct LaunchRow {
  const GpuSpec* gpu;
  Workload layout;  // the row's tp, pp, ep and attention, with the plan's formats and reserve
  const CapacityPlan* plan;
  std::string sized_on;
};

// Refuses the rows the engine cannot run as planned when every row is such (io::InputError naming
// the flag); writes the others, after removing the launch files an earlier plan left in `dir` for
// the same engine, and says so on `err`. A file there named like one (NN-ENGINE-*.sh) that is one
// of this command's inputs is refused (io::InputError naming --emit-dir, nothing removed), and
// one rooflineplan did not write is left, said on `err` (refused where this plan's would replace it).
void write_launch_files(launch::Engine engine, const std::string& dir, const ModelSpec& m, std::string_view model_arg,
                        const std::vector<LaunchRow>& rows, std::ostream& err);

}  // namespace roofline::cli
