// libFuzzer target: any text as a model description. It must be read, or refused with an
// InputError; a read model must evaluate on a fixed GPU to finite numbers, go through every
// writer (fuzz/every_writer.hpp) and be explained, read back from a file, in both languages.
#include "fuzz_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofline;
  static const GpuSpec gpu = fuzz::reference_gpu();
  fuzz::fuzz_document(data, size, [&](const io::YamlDocument& doc) {
    const ModelSpec m = io::read_model(doc);
    const Report r = evaluate(m, gpu, fuzz::workload_for(m, gpu));
    fuzz::check_finite(r);
    fuzz::check_every_writer(r);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    fuzz::check_explain(fuzz::scratch_file("fuzz-model", ".yaml", text), "a100-80gb", m.name + "\n" + m.source);
  });
  return 0;
}
