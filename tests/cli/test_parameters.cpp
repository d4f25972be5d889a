// Parameter counts and KV sizes against the published configs, worked by hand.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "model/parameters.hpp"

using namespace roofline;

namespace {
ParameterCount preset_params(const std::string& id) { return count_parameters(io::load_model(id)); }
Bytes preset_kv(const std::string& id) {
  const ModelSpec m = io::load_model(id);
  return kv_bytes_per_token(m, resolve_precision(m.dtype, {}));
}
}  // namespace

TEST_CASE("Llama-2-7B: 32 × (4·4096² + 3·4096·11008 + 2·4096) + 2·32000·4096 + 4096 = 6738415616") {
  // The exact count Hugging Face reports for meta-llama/Llama-2-7b-hf.
  CHECK(preset_params("llama-2-7b").total() == 6'738'415'616.0);
}

TEST_CASE("Llama-2-7B KV cache: 2 · 32 layers · 32 heads · 128 · 2 B = 0.5 MiB per token") {
  CHECK(preset_kv("llama-2-7b").value() == 512.0 * 1024);
}

TEST_CASE("Llama-3.1-8B: GQA with 8 KV heads gives 2 · 32 · 8 · 128 · 2 B = 128 KiB per token") {
  CHECK(preset_kv("llama-3.1-8b").value() == 128.0 * 1024);
  CHECK(preset_params("llama-3.1-8b").total() == 8'030'261'248.0);  // HF count
}

TEST_CASE("Mixtral-8x7B: 46702792704 total - 12879925248 active (top 2 of 8 experts)") {
  const ParameterCount p = preset_params("mixtral-8x7b");
  CHECK(p.total() == 46'702'792'704.0);
  // Per layer: attention 41,943,040 + 2 experts × 176,160,768 + router 32,768 + norms 8,192.
  CHECK(p.active() == 32.0 * (41'943'040 + 2 * 176'160'768 + 32'768 + 8'192) + 2 * 131'072'000 + 4'096);
}

TEST_CASE("Qwen2.5-7B with Q/K/V biases: 7615616512 parameters - as Hugging Face counts") {
  CHECK(preset_params("qwen2.5-7b").total() == 7'615'616'512.0);
}

TEST_CASE("int4 weights with group 128 and fp16 scales: 0.5 + 2/128 bytes per block weight") {
  const ParameterCount p = preset_params("llama-2-7b");
  Precision prec = resolve_precision(DType::fp16, {.weights = DType::int4});
  CHECK(prec.weight_bytes_per_element() == 0.515625);
  CHECK(prec.compute == DType::fp16);  // W4A16 computes in fp16
  // Block linears 6,476,005,376 × 0.515625, embeddings and head 262,144,000 × 2 B stay fp16,
  // norms 266,240 × 2 B.
  CHECK(weight_bytes(p, prec).value() == 6'476'005'376.0 * 0.515625 + 262'144'000.0 * 2 + 266'240.0 * 2);
}

TEST_CASE("a model known only by its size counts its params and no KV cache") {
  const ModelSpec m = io::load_model(test::example_file("7b.yaml"));
  CHECK(count_parameters(m).total() == 7e9);
  CHECK(kv_bytes_per_token(m, resolve_precision(m.dtype, {})).value() == 0);
}
