#pragma once
// What every fuzz target holds the tool to: bad input is refused with an InputError (or the
// engine's std::invalid_argument), and whatever is accepted evaluates to finite numbers and
// goes through every writer intact (fuzz/every_writer.hpp). Anything else aborts, which
// libFuzzer reports as a finding.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "every_writer.hpp"
#include "io/input_error.hpp"
#include "io/spec_loader.hpp"
#include "model/engine.hpp"

namespace roofline::fuzz {

template <class Body>
void refused_or(Body&& body) {
  try {
    body();
  } catch (const io::InputError&) {
  } catch (const std::invalid_argument&) {
  }
}

inline void check_finite(const Report& r) {
  for (double v : {r.prefill.time.value(), r.decode.step.time.value(), r.decode.tokens_per_s,
                   r.critical_batch.weights_only, r.memory.total.value(), r.model.weight_bytes.value()}) {
    if (!std::isfinite(v) || v < 0) fail("a headline number is not finite or is negative", std::to_string(v));
  }
  check_columns_finite(r);
}

// An accepted file is one document: a second after `---` would be silently ignored.
inline void check_single_document(const std::string& text) {
  std::size_t documents = 0;
  try {
    documents = YAML::LoadAll(text).size();
  } catch (const YAML::Exception& e) {
    fail(std::string("accepted, but what follows the first document does not parse: ") + e.what(), text);
  }
  if (documents > 1) fail("accepted a file of " + std::to_string(documents) + " YAML documents, reading only the first", text);
}

// One fuzz input parsed as a document and handed to `read_and_check` (which reads it, evaluates
// it while the specs are alive, and checks the report and its writers): refused, or accepted
// whole and written intact.
template <class ReadAndCheck>
void fuzz_document(const std::uint8_t* data, std::size_t size, ReadAndCheck&& read_and_check) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  bool accepted = false;
  refused_or([&] {
    read_and_check(io::parse_yaml(text, "fuzz.yaml"));
    accepted = true;
  });
  if (accepted) check_single_document(text);
}

// The default workload on this GPU: a checkpoint's compute format where the GPU has its peak.
inline Workload workload_for(const ModelSpec& m, const GpuSpec& g) {
  Workload w;
  w.precision = resolve_precision(m, {}, g);
  return w;
}

inline GpuSpec reference_gpu() {
  return io::read_gpu(io::parse_yaml(R"(name: fuzz A100
memory: { capacity: "80 GB", bandwidth: "2 TB/s" }
compute:
  peak: { fp32: "19.5 TFLOPS", tf32: "156 TFLOPS", fp16: "312 TFLOPS", bf16: "312 TFLOPS", fp8: "624 TFLOPS", int8: "624 TOPS", int4: "1248 TOPS", fp4: "1248 TFLOPS" }
)",
                                       "reference-gpu.yaml"));
}

inline ModelSpec reference_model() {
  return io::read_model(io::parse_yaml(R"(name: fuzz tiny
layers: 2
hidden: 64
heads: 4
kv_heads: 2
ffn: 128
ffn_type: gated
vocab: 1000
dtype: fp16
)",
                                         "reference-model.yaml"));
}

}  // namespace roofline::fuzz
