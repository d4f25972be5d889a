// Not a test: N engine evaluations of one point and nothing else, for counting instructions.
// One evaluation's count is the difference between N calls and none:
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null build/tests/cli/rooflineplan_engine_calls 2000 llama-3.1-8b 1
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null build/tests/cli/rooflineplan_engine_calls 0 llama-3.1-8b 1
// (the benchmark's own machinery would be counted under rooflineplan_bench).
#include <cstdio>
#include <exception>
#include <string>

#include "io/spec_loader.hpp"
#include "model/engine.hpp"
#include "model/precision.hpp"

using namespace roofline;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CALLS MODEL TP   (batch 32 on an H100 SXM)\n", argv[0]);
    return 2;
  }
  try {
    const long calls = std::stol(argv[1]);
    const ModelSpec model = io::load_model(argv[2]);
    const GpuSpec gpu = io::load_gpu("h100-sxm");
    Workload w;  // the benchmark's: batch 32 at the model's own precision
    w.batch = 32;
    w.precision = resolve_precision(model);
    w.tp = std::stoi(argv[3]);
    double sum = 0;
    for (long i = 0; i < calls; ++i) sum += evaluate(model, gpu, w).decode.step.time.value();
    std::printf("%ld calls, decode steps summed %.6g s\n", calls, sum);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
