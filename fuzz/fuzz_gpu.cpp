// libFuzzer target: any text as a GPU description, read or refused, then evaluated with a fixed
// model without a crash, a NaN or an infinity.
#include "fuzz_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofline;
  static const ModelSpec model = fuzz::reference_model();
  fuzz::fuzz_document(data, size, [](const io::YamlDocument& doc) {
    const GpuSpec g = io::read_gpu(doc);
    fuzz::check_finite(evaluate(model, g, fuzz::workload_for(model)));
  });
  return 0;
}
