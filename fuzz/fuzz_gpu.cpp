// libFuzzer target: any text as a GPU description, read or refused, then evaluated with a fixed
// model to finite numbers, put through every writer (fuzz/every_writer.hpp) and explained, read
// back from a file, in both languages.
#include "fuzz_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace roofline;
  static const ModelSpec model = fuzz::reference_model();
  fuzz::fuzz_document(data, size, [&](const io::YamlDocument& doc) {
    const GpuSpec g = io::read_gpu(doc);
    const Report r = evaluate(model, g, fuzz::workload_for(model, g));
    fuzz::check_finite(r);
    fuzz::check_every_writer(r);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    fuzz::check_explain("llama-2-7b", fuzz::scratch_file("fuzz-gpu", ".yaml", text), g.name + "\n" + g.source);
  });
  return 0;
}
