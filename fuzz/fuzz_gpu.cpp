// libFuzzer target: any text as a GPU description, read or refused, then evaluated with a fixed
// model without a crash, a NaN or an infinity.
#include <cstdint>
#include <string>

#include "engine.hpp"
#include "fuzz_checks.hpp"
#include "spec_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofline;
  static const ModelSpec model = fuzz::reference_model();
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::refused_or([&] {
    const GpuSpec g = cli::read_gpu(cli::parse_yaml(text, "fuzz.yaml"));
    fuzz::check_finite(evaluate(model, g, fuzz::workload_for(model)));
  });
  return 0;
}
