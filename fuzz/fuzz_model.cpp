// libFuzzer target: any text as a model description. It must be read, or refused with an
// InputError; a read model must evaluate on a fixed GPU without a crash, a NaN or an infinity.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine.hpp"
#include "fuzz_checks.hpp"
#include "spec_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofline;
  static const GpuSpec gpu = fuzz::reference_gpu();
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::refused_or([&] {
    const ModelSpec m = cli::read_model(cli::parse_yaml(text, "fuzz.yaml"));
    fuzz::check_finite(evaluate(m, gpu, fuzz::workload_for(m)));
  });
  return 0;
}
