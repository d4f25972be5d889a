// Weights priced in the formats checkpoints store them in, per tensor class and per matrix, with
// the bytes worked by hand.
#include <catch2/catch.hpp>

#include <string_view>

#include "model/operators.hpp"
#include "model/parameters.hpp"
#include "specs.hpp"

using namespace roofline;
using enum WeightFormat;

namespace {

const OpCost& op(const OpList& ops, std::string_view name) {
  for (const OpCost& o : ops) {
    if (o.name == name) return o;
  }
  FAIL("no operator " << name);
  return ops.front();
}

const OpCost& op(const std::vector<OpResult>& ops, std::string_view name) {
  for (const OpResult& o : ops) {
    if (o.cost.name == name) return o.cost;
  }
  FAIL("no operator " << name);
  return ops.front().cost;
}

// Llama-3.2-1B's shape: 16 layers of 2048, 32 heads and 8 K/V heads of 64, FFN 8192, a tied
// 128,256-token table.
ModelSpec tied_1b() {
  ModelSpec m;
  m.name = "tied-1B";
  m.architecture = test::dense_gated(16, 2048, 32, 8, 8192, 128256);
  m.architecture->tied_embeddings = true;
  m.dtype = DType::bf16;
  return m;
}

}  // namespace

TEST_CASE("formats: bytes of a 4096 x 1024 matrix in each format, scales and zero points included") {
  constexpr double in = 4096, out = 1024, n = in * out;  // 4,194,304 weights
  CHECK(stored_bytes(fp32, in, out, 1, 128) == 4 * n);
  CHECK(stored_bytes(bf16, in, out, 1, 128) == 2 * n);
  CHECK(stored_bytes(int8, in, out, 1, 128) == n);
  // fp8: one fp32 scale for the whole matrix.
  CHECK(stored_bytes(fp8, in, out, 1, 128) == n + 4);
  // fp8-channel: an fp32 scale per output channel, 1 + 4/in bytes a weight: 1024 × 4 = 4,096 B.
  CHECK(stored_bytes(fp8_channel, in, out, 1, 128) == n * (1 + 4 / in));
  CHECK(stored_bytes(fp8_channel, in, out, 1, 128) == n + 4096);
  // fp8-block: an fp32 scale per 128 × 128 block, 1 + 4/16384 a weight: 256 blocks, 1,024 B.
  CHECK(stored_bytes(fp8_block, in, out, 1, 128) == n * (1 + 4.0 / 16384));
  CHECK(stored_bytes(fp8_block, in, out, 1, 128) == n + 1024);
  // int4 at group 128: an fp16 scale per 128, 0.5 + 2/128 = 0.515625 a weight.
  CHECK(stored_bytes(int4, in, out, 1, 128) == n * 0.515625);
  // awq and gptq at group 128: an fp16 scale and a 4-bit zero per 128, 0.5 + 2.5/128 a weight.
  CHECK(stored_bytes(awq, in, out, 1, 128) == n * (0.5 + 2.5 / 128));
  CHECK(stored_bytes(gptq, in, out, 1, 64) == n * (0.5 + 2.5 / 64));
  // mxfp4: an e8m0 scale per 32, whatever the group asked: 0.5 + 1/32 = 0.53125 a weight.
  CHECK(stored_bytes(mxfp4, in, out, 1, 128) == n * 0.53125);
  CHECK(stored_bytes(mxfp4, in, out, 1, 64) == n * 0.53125);
  // nvfp4: an e4m3 scale per 16 and an fp32 one per matrix: 0.5 + 1/16 = 0.5625 a weight + 4 B.
  CHECK(stored_bytes(nvfp4, in, out, 1, 128) == n * 0.5625 + 4);
  CHECK(stored_bytes(nvfp4, in, out, 32, 128) == 32 * (n * 0.5625 + 4));
  // fp6 at group 128: 6 bits and an fp16 scale per 128, 0.75 + 2/128 = 0.765625 a weight.
  CHECK(stored_bytes(fp6, in, out, 1, 128) == n * 0.765625);
  // mxfp6: an e8m0 scale per 32, whatever the group asked: 0.75 + 1/32 = 0.78125 a weight.
  CHECK(stored_bytes(mxfp6, in, out, 1, 64) == n * 0.78125);
}

TEST_CASE("fp6: 0.75 B an element, narrower than a byte, its plain format fp6 - a peak of its own") {
  CHECK(bytes_per_element(DType::fp6) == 0.75);
  CHECK(is_sub_byte(DType::fp6));
  CHECK_FALSE(is_wide_float(DType::fp6));
  CHECK(dtype_from_name("fp6") == DType::fp6);
  CHECK(name(DType::fp6) == "fp6");
  CHECK(weight_format_of(DType::fp6) == fp6);
  CHECK(element_of(mxfp6) == DType::fp6);
  // A peak table has a slot for it apart from fp8's and fp4's.
  PeakTable p{};
  p[static_cast<std::size_t>(DType::fp6)] = FlopsPerSecond(10e15);
  CHECK_FALSE(p[static_cast<std::size_t>(DType::fp4)].has_value());
  CHECK_FALSE(p[static_cast<std::size_t>(DType::fp8)].has_value());
}

TEST_CASE("formats: bytes a weight of a large matrix, per-matrix and per-channel scales left out") {
  CHECK(bytes_per_weight(mxfp4, 128) == 0.53125);
  CHECK(bytes_per_weight(nvfp4, 128) == 0.5625);
  CHECK(bytes_per_weight(fp8_block, 128) == 1 + 4.0 / 16384);
  CHECK(bytes_per_weight(awq, 128) == 0.51953125);
  CHECK(bytes_per_weight(fp8_channel, 128) == 1);
  CHECK(bytes_per_weight(fp16, 128) == 2);
}

TEST_CASE("precision: the checkpoint's formats win over the dtype - --weights sets the blocks - tables stay 16-bit") {
  const Precision oss = resolve_precision(test::gpt_oss_like());
  CHECK(oss.of(TensorClass::experts) == mxfp4);
  CHECK(oss.of(TensorClass::attention) == bf16);
  CHECK(oss.of(TensorClass::dense_ffn) == bf16);
  CHECK(oss.of(TensorClass::lm_head) == bf16);
  CHECK(oss.of(TensorClass::embedding) == bf16);
  CHECK(oss.compute == DType::bf16);
  CHECK(oss.group_size == 128);

  const Precision block = resolve_precision(test::gpt_oss_like(), {.weights = fp8_block});
  CHECK(block.of(TensorClass::experts) == fp8_block);
  CHECK(block.of(TensorClass::attention) == fp8_block);
  CHECK(block.of(TensorClass::lm_head) == bf16);

  // Wide block weights take the tables with them: fp32 blocks, fp32 tables (as before).
  const Precision fp32_blocks = resolve_precision(test::llama_2_7b(), {.weights = fp32});
  CHECK(fp32_blocks.of(TensorClass::lm_head) == fp32);
  CHECK(fp32_blocks.of(TensorClass::embedding) == fp32);

  // A checkpoint that names its head keeps it under --weights; --lm-head overrides it.
  ModelSpec m = test::llama_2_7b();
  m.quantization = Quantization{};
  m.quantization->of(TensorClass::lm_head) = int8;
  m.quantization->group_size = 64;
  CHECK(resolve_precision(m, {.weights = bf16}).of(TensorClass::lm_head) == int8);
  CHECK(resolve_precision(m, {.weights = bf16}).of(TensorClass::embedding) == bf16);
  CHECK(resolve_precision(m, {.lm_head = int4}).of(TensorClass::lm_head) == int4);
  // The checkpoint's group is the default; --group-size overrides it.
  CHECK(resolve_precision(m).group_size == 64);
  CHECK(resolve_precision(m, {.group_size = 32}).group_size == 32);
}

TEST_CASE("gpt-oss-like: MXFP4 experts and bf16 attention, head and embedding, priced per class") {
  const ModelSpec m = test::gpt_oss_like();
  const WeightBytes b = weight_bytes(m, resolve_precision(m));
  // Attention: 24 × 2880 · (4096 + 512 + 512 + 4096) = 637,009,920 weights × 2 B.
  CHECK(b.of(TensorClass::attention).value() == 637'009'920.0 * 2);
  // Experts: 24 × 32 × 3 × 2880² = 19,110,297,600 weights × 0.53125 B = 10,152,345,600 B.
  CHECK(b.of(TensorClass::experts).value() == 10'152'345'600.0);
  CHECK(b.of(TensorClass::dense_ffn).value() == 0);
  // The untied head and the embedding: 201,088 × 2880 = 579,133,440 weights × 2 B each.
  CHECK(b.of(TensorClass::lm_head).value() == 579'133'440.0 * 2);
  CHECK(b.of(TensorClass::embedding).value() == 579'133'440.0 * 2);
  // Routers 24 × 2880 × 32 and norms (2 × 24 + 1) × 2880: 2,352,960 × 2 B.
  CHECK(b.small.value() == 2'352'960.0 * 2);
  CHECK(b.total().value() == 13'747'605'120.0);

  // The engine reports what it priced, and the ledger and B* hold the same bytes.
  const Report r = evaluate(m, test::h100_sxm(), test::default_workload(m, 1));
  CHECK(r.model.weight_bytes.value() == 13'747'605'120.0);
  CHECK(r.memory.weights.value() == 13'747'605'120.0);
  CHECK(r.model.weight_bytes_by_class[static_cast<std::size_t>(TensorClass::experts)].value() == 10'152'345'600.0);
  // Active: attention 637,009,920 + 4 of 32 experts 2,388,787,200 + both tables 1,158,266,880 +
  // routers and norms 2,352,960 = 4,186,416,960. B* = (W / BW) · peak / (2 · N) takes the bytes a
  // step streams, all but the gathered table, and the weights a token multiplies, all but the
  // table and the norms: 12,589,338,240 B and 3,607,142,400 (tests/model/test_critical_batch.cpp).
  CHECK(r.model.params_active == 4'186'416'960.0);
  CHECK_THAT(r.critical_batch.weights_only,
             Catch::Matchers::WithinRel((13'747'605'120.0 - 579'133'440.0 * 2) / 3.35e12 * 989e12 /
                                            (2 * (4'186'416'960.0 - 579'133'440.0 - 2'352'960.0 + 24 * 2880 * 32)),
                                        1e-12));
  // Decode at batch 1 reads 4 of the 32 experts: 24 × 4 × 2880² × 0.53125 B of up projections.
  CHECK(op(r.decode.step.ops, "expert_up").weight_bytes.value() == 24.0 * 4 * 2880 * 2880 * 0.53125);
  CHECK(op(r.decode.step.ops, "q_proj").weight_bytes.value() == 24.0 * 2880 * 4096 * 2);
}

TEST_CASE("an int4 LM head (--lm-head int4) changes the head alone: 131,072,000 weights × 0.515625 B") {
  const ModelSpec m = test::llama_2_7b();
  const Precision plain = resolve_precision(m), head4 = resolve_precision(m, {.lm_head = int4});
  CHECK(head4.of(TensorClass::attention) == fp16);
  CHECK(head4.of(TensorClass::embedding) == fp16);
  const WeightBytes a = weight_bytes(m, plain), b = weight_bytes(m, head4);
  CHECK(b.of(TensorClass::lm_head).value() == 67'584'000.0);
  for (TensorClass c : {TensorClass::attention, TensorClass::dense_ffn, TensorClass::embedding}) {
    CHECK(a.of(c) == b.of(c));
  }
  CHECK(a.total().value() - b.total().value() == 262'144'000.0 - 67'584'000.0);
  Workload w = test::default_workload(m, 1);
  w.precision = head4;
  const OpList decode = build_ops(Phase::decode, m, w, ExpertRouting::uniform);
  CHECK(op(decode, "lm_head").weight_bytes.value() == 67'584'000.0);
  // The embedding's one row a token is still 4096 fp16 weights, plus its fp16 copy out.
  CHECK(op(decode, "embedding").bytes.value() == 4096.0 * 2 + 4096.0 * 2);
}

TEST_CASE("a tied table is one tensor in the head's format: --lm-head int4 prices it, gathered and multiplied") {
  const ModelSpec m = tied_1b();
  const Precision p = resolve_precision(m, {.lm_head = int4});
  const WeightBytes b = weight_bytes(m, p);
  // 128,256 × 2048 = 262,668,288 weights × 0.515625 B, counted once, as the embedding.
  CHECK(b.of(TensorClass::embedding).value() == 262'668'288.0 * 0.515625);
  CHECK(b.of(TensorClass::lm_head).value() == 0);
  Workload w = test::default_workload(m, 1);
  w.precision = p;
  const OpList decode = build_ops(Phase::decode, m, w, ExpertRouting::uniform);
  CHECK(op(decode, "lm_head").weight_bytes.value() == 262'668'288.0 * 0.515625);
  // One row of 2048 int4 weights with 16 fp16 scales (1,056 B), and its bf16 copy out (4,096 B).
  CHECK(op(decode, "embedding").bytes.value() == 1056.0 + 4096.0);
}

TEST_CASE("fp8 weights carry one fp32 scale a matrix: Llama-2-7B's 224 block matrices add 896 B") {
  const ModelSpec m = test::llama_2_7b();
  const WeightBytes b = weight_bytes(m, resolve_precision(m, {.weights = fp8}));
  // 32 layers × (Q, K, V, O, gate, up, down); embeddings and head stay fp16, norms too.
  CHECK(b.total().value() == 6'476'005'376.0 + 224 * 4 + 262'144'000.0 * 2 + 266'240.0 * 2);
}

TEST_CASE("fp8-channel under tensor parallelism: each GPU holds the scales of the channels it writes") {
  const ModelSpec m = test::llama_2_7b();
  Workload w = test::default_workload(m, 1);
  w.precision = resolve_precision(m, {.weights = fp8_channel});
  const OpList one = build_ops(Phase::decode, m, w, ExpertRouting::uniform);
  CHECK(op(one, "q_proj").weight_bytes.value() == 32 * (4096.0 * 4096 + 4096 * 4));
  w.tp = 2;
  const OpList two = build_ops(Phase::decode, m, w, ExpertRouting::uniform);
  // Column-parallel Q: half the channels, half the scales. Row-parallel O: half the inputs of
  // every channel, so all 4096 scales on each GPU.
  CHECK(op(two, "q_proj").weight_bytes.value() == 32 * (4096.0 * 2048 + 2048 * 4));
  CHECK(op(two, "o_proj").weight_bytes.value() == 32 * (2048.0 * 4096 + 4096 * 4));
}

TEST_CASE("a model known only by its size is priced per weight in its block format") {
  const ModelSpec m = test::teaching_7b();
  CHECK(weight_bytes(m, resolve_precision(m)).total().value() == 14e9);
  CHECK(weight_bytes(m, resolve_precision(m, {.weights = mxfp4})).total().value() == 7e9 * 0.53125);
}
