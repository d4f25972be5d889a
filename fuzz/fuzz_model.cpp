// libFuzzer target: any text as a model description. It must be read, or refused with an
// InputError; a read model must evaluate on a fixed GPU without a crash, a NaN or an infinity.
#include "fuzz_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofline;
  static const GpuSpec gpu = fuzz::reference_gpu();
  fuzz::fuzz_document(data, size, [](const io::YamlDocument& doc) {
    const ModelSpec m = io::read_model(doc);
    fuzz::check_finite(evaluate(m, gpu, fuzz::workload_for(m)));
  });
  return 0;
}
