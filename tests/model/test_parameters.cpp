// Parameter counts and KV sizes against the published configs, worked by hand.
#include <catch2/catch.hpp>

#include "model/parameters.hpp"
#include "specs.hpp"

using namespace roofline;

namespace {
Bytes kv_per_token(const ModelSpec& m) { return kv_bytes_per_token(m, resolve_precision(m)); }
}  // namespace

TEST_CASE("Llama-2-7B: 32 × (4·4096² + 3·4096·11008 + 2·4096) + 2·32000·4096 + 4096 = 6738415616") {
  // The exact count Hugging Face reports for meta-llama/Llama-2-7b-hf.
  CHECK(count_parameters(test::llama_2_7b()).total() == 6'738'415'616.0);
}

TEST_CASE("Llama-2-7B KV cache: 2 · 32 layers · 32 heads · 128 · 2 B = 0.5 MiB per token") {
  CHECK(kv_per_token(test::llama_2_7b()).value() == 512.0 * 1024);
}

TEST_CASE("Llama-3.1-8B: GQA with 8 KV heads gives 2 · 32 · 8 · 128 · 2 B = 128 KiB per token") {
  CHECK(kv_per_token(test::llama_3_1_8b()).value() == 128.0 * 1024);
  CHECK(count_parameters(test::llama_3_1_8b()).total() == 8'030'261'248.0);  // HF count
}

TEST_CASE("Mixtral-8x7B: 46702792704 total - 12879925248 active (top 2 of 8 experts)") {
  const ParameterCount p = count_parameters(test::mixtral_8x7b());
  CHECK(p.total() == 46'702'792'704.0);
  // Per layer: attention 41,943,040 + 2 experts × 176,160,768 + router 32,768 + norms 8,192.
  CHECK(p.active() == 32.0 * (41'943'040 + 2 * 176'160'768 + 32'768 + 8'192) + 2 * 131'072'000 + 4'096);
}

TEST_CASE("Qwen2.5-7B with Q/K/V biases: 7615616512 parameters - as Hugging Face counts") {
  CHECK(count_parameters(test::qwen2_5_7b()).total() == 7'615'616'512.0);
}

TEST_CASE("int4 weights with group 128 and fp16 scales: 0.5 + 2/128 bytes per block weight") {
  const ModelSpec m = test::llama_2_7b();
  const Precision prec = resolve_precision(m, {.weights = WeightFormat::int4});
  CHECK(bytes_per_weight(prec.of(TensorClass::attention), prec.group_size) == 0.515625);
  CHECK(prec.compute == DType::fp16);  // W4A16 computes in fp16
  CHECK(prec.of(TensorClass::lm_head) == WeightFormat::fp16);
  CHECK(prec.of(TensorClass::embedding) == WeightFormat::fp16);
  // Block linears 6,476,005,376 × 0.515625, embeddings and head 262,144,000 × 2 B stay fp16,
  // norms 266,240 × 2 B.
  CHECK(weight_bytes(m, prec).total().value() == 6'476'005'376.0 * 0.515625 + 262'144'000.0 * 2 + 266'240.0 * 2);
}

TEST_CASE("a model known only by its size counts its params and no KV cache") {
  const ModelSpec m = test::teaching_7b();
  CHECK(count_parameters(m).total() == 7e9);
  CHECK(kv_bytes_per_token(m, resolve_precision(m)).value() == 0);
}
