#include "model/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>

#include "model/expected.hpp"
#include "model/memory_ledger.hpp"
#include "model/operators.hpp"
#include "model/parameters.hpp"
#include "model/pipeline.hpp"

namespace roofline {

namespace {

void check(const std::optional<SpecError>& e) {
  if (e) throw std::invalid_argument(fmt::format("{}: {}", e->field, e->message));
}

// Whether a kernel class can price one of this point's operators: a class it certainly leaves
// alone (fp8 GEMMs under 16-bit arithmetic, experts without a MoE, latent attention without MLA, a
// collective on one GPU) is not named among a GPU's borrowed classes. Errs towards naming.
bool may_price(KernelClass k, const Architecture& a, const Workload& w) {
  const bool fp8 = w.precision.compute == DType::fp8;
  const bool moe = a.moe_layers() > 0;
  switch (k) {
    case KernelClass::gemm:
    case KernelClass::elementwise: return true;
    case KernelClass::gemm_fp8:
    case KernelClass::gemm_fp8_block: return fp8;
    case KernelClass::experts: return moe;
    case KernelClass::experts_fp8: return moe && fp8;
    case KernelClass::decode_attention:
    case KernelClass::prefill_attention:
      // Latent layers take the latent classes; a naive kernel none (model/operators.cpp).
      return a.attention_layers() > 0 && (!a.mla.has_value() || a.full_attention.has_value()) &&
             w.attention == AttentionKernel::flash;
    case KernelClass::latent_decode:
    case KernelClass::latent_prefill: return a.mla.has_value();
    case KernelClass::delta_net_decode:
    case KernelClass::delta_net_prefill: return a.recurrent && a.recurrent->kind == RecurrentKind::gated_deltanet;
    case KernelClass::all_reduce:
    case KernelClass::nccl_all_reduce: return w.tp > 1 || w.ep > 1;
  }
  return true;
}

std::vector<Warning> warnings_for(const Report& r) {
  std::vector<Warning> out = input_warnings(r.model.spec, r.gpu.spec, r.workload);
  const Workload& w = r.workload;
  // Whether it fits is decided on the fullest GPU (model/memory_ledger.hpp), and that is what is
  // said: a pipeline's stages hold unequal shares, and under data-parallel attention an odd batch
  // puts one sequence more on some GPUs, whose totals could fit where the fullest GPU does not.
  if (!r.memory.fits) out.emplace_back(DoesNotFit{r.memory.fullest_gpu, r.gpu.spec.memory_capacity, w.batch});
  return out;
}

// What the replica's GPUs hold, from one GPU of a stage holding all the layers at its widths: tp
// such GPUs hold everything. Under pipeline parallelism each stage holds its own layers as
// stage_split deals them (layer by layer: a Mamba layer weighs less than a MoE one), the first the
// embedding, an MTP module's input, Gemma 4's per-layer input projection and the towers, the last
// the final norm and the head (a tied table again): pipeline_stages and stage_weights
// (model/memory_ledger.hpp), which the ledger weighs each stage's cache by too.
// `one_gpu`: what `shard` weighs (the whole model's weights when it describes one GPU of tp 1).
WeightPlacement place_weights(const Architecture& a, const LayerStack& shard, const WeightBytes& one_gpu,
                              const WeightPricing& pricing, const Workload& w) {
  if (w.pp == 1) return {one_gpu.total() * static_cast<double>(w.tp), one_gpu.total(), {}};
  return stage_weights(pipeline_stages(a, shard, w), one_gpu, pricing, w);
}

// What a point's weights cost, which its batch and lengths leave alone: the pricing of its formats,
// the weights (whole model), where they lie on the GPUs, and a token's K/V. Each thread keeps the
// last it worked out, keyed on the descriptions (address and serial: described_layers'), the
// precision and the layout place_weights reads; a sweep or a plan evaluates millions of points of
// one model at one precision and layout, and weighing was some 1.7k of a point's 24.6k instructions.
struct Weighed {
  WeightPricing pricing;
  Weights weights;
  WeightPlacement placed;
  Bytes kv_per_token;
  DecodeWeights decode;  // the critical batch's
};

const Weighed& weighed(const Architecture& a, const LayerStack& whole, const LayerStack* split, const Workload& w) {
  struct Key {
    const LayerStack *whole, *split;
    std::uint64_t whole_serial, split_serial;
    Precision precision;
    int tp, pp;
    bool operator==(const Key&) const = default;
  };
  thread_local std::optional<std::pair<Key, Weighed>> kept;
  const Key key{&whole, split, whole.serial, split ? split->serial : 0, w.precision, w.tp, w.pp};
  // A description described_layers did not keep (serial 0) is weighed afresh.
  if (kept && whole.serial != 0 && (!split || split->serial != 0) && kept->first == key) return kept->second;
  const LayerStack& shard = split ? *split : whole;
  WeightPricing pricing(w.precision, whole);
  Weights weights = weigh(whole, pricing);
  const WeightPlacement placed = place_weights(a, shard, split ? weigh(*split, pricing).bytes : weights.bytes, pricing, w);
  const Bytes kv_per_token(cache_elements(whole, 1).token_bytes(w.precision.kv));
  const DecodeWeights decode = decode_weights(whole, weights.bytes, pricing);
  kept.emplace(key, Weighed{pricing, weights, placed, kv_per_token, decode});
  return kept->second;
}

// One sequence's decode step, every expert read (the critical batch's), the cache it holds (the
// whole model's) and what it holds on the GPUs of a stage (the ledger's): they change with the
// lengths, not the batch. Kept per thread as weighed() is, keyed on the descriptions and the whole
// workload at batch 1 (a plan searches batches at one workload).
struct OneSequence {
  OpTotals step;
  Bytes cache;
  SequenceFootprint footprint;
};

// `weights`: weighed()'s for `whole` at one.precision; the key holds those two in its stead.
// `a`: the model `whole` describes, whose layers a pipeline's stages split.
const OneSequence& one_sequence(const Architecture& a, const LayerStack& whole, const LayerStack& shard,
                                const Workload& one, const Weighed& weights) {
  struct Key {
    const LayerStack *whole, *shard;
    std::uint64_t whole_serial, shard_serial;
    Workload one;
    bool operator==(const Key&) const = default;
  };
  thread_local std::optional<std::pair<Key, OneSequence>> kept;
  const Key key{&whole, &shard, whole.serial, shard.serial, one};
  if (kept && whole.serial != 0 && shard.serial != 0 && kept->first == key) return kept->second;
  const auto sequence = static_cast<double>(held_tokens(one));
  kept.emplace(key, OneSequence{build_totals(Phase::decode, shard, one, ExpertRouting::all, weights.pricing),
                                Bytes(cache_elements(whole, sequence).bytes(one.precision.kv)),
                                sequence_footprint(a, shard, one)});
  return kept->second;
}

// The busiest stage's time, each block priced alone and its layers dealt out as deal_stages
// deals them (layer by layer: DeepSeek-V3's dense layers lie on the first stage, Nemotron-H's
// Mamba, attention and MoE layers in its pattern), the first stage holding the ends before the
// layers (the embedding), the last those after (the final norm, the head). Spread over the stages,
// the head had made Llama-3.1-8B at pp 4 faster than at pp 1 (4.51 against 4.59 ms at batch 4; its
// last stage alone, 8 layers and the head, takes 1.36 ms a micro-batch: 5.45 ms).
Seconds busiest_stage(Phase phase, const Architecture& a, const LayerStack& shard, const Workload& micro,
                      const WeightPricing& pricing, const GpuSpec& gpu, const Ceilings& c) {
  std::vector<Seconds> stage(static_cast<std::size_t>(micro.pp));
  LayerStack one = shard;
  one.serial = 0;  // not a description described_layers keeps
  deal_stages(a, shard, micro.pp, [&](const Block& b, std::span<const int> held) {
    one.blocks.assign(1, b);
    const Seconds alone =
        evaluate_phase(build_ops(phase, one, micro, ExpertRouting::uniform, pricing), c, gpu.interconnect, gpu.network).time;
    for (std::size_t i = 0; i < stage.size(); ++i) stage[i] += alone * (held[i] / b.layers);
  });
  return *std::max_element(stage.begin(), stage.end());
}

// A phase of a pipeline: each micro-batch size priced through every stage with its sends, then
// composed (model/pipeline.hpp). B = q·m + r: r micro-batches of q + 1 sequences, m − r of q.
// `a`: the model, whose layers the stages split.
PhaseResult pipeline_phase(Phase phase, const Architecture& a, const LayerStack& shard, const Workload& w,
                           const WeightPricing& pricing, const GpuSpec& gpu, const Ceilings& c, const ExpectedModel& em,
                           Pipeline& out) {
  const long m = microbatches(w), q = w.batch / m, r = w.batch % m;
  std::vector<PhaseResult> passes;
  std::vector<MicroBatches> parts;
  passes.reserve(2);
  for (const auto& [size, count] : {std::pair{q + 1, r}, std::pair{q, m - r}}) {
    if (count == 0 || size == 0) continue;
    Workload micro = w;
    micro.batch = size;
    OpList ops = build_ops(phase, shard, micro, ExpertRouting::uniform, pricing);
    const double rows = static_cast<double>(size) * (phase == Phase::prefill ? static_cast<double>(w.prompt_tokens) : 1.0);
    for (const OpCost& op : pipeline_sends(w, rows, shard.hidden, shard, *gpu.interconnect)) ops.push_back(op);
    PhaseResult pass = evaluate_phase(ops, c, gpu.interconnect, gpu.network);
    pass.expected = expected_phase(pass, em, c);
    passes.push_back(std::move(pass));
    parts.push_back({nullptr, count, size, busiest_stage(phase, a, shard, micro, pricing, gpu, c)});
  }
  for (std::size_t i = 0; i < parts.size(); ++i) parts[i].pass = &passes[i];
  return pipelined(parts, phase, w.pp, out);
}

}  // namespace

std::vector<Warning> input_warnings(const ModelSpec& m, const GpuSpec& g, const Workload& w) {
  std::vector<Warning> out;
  if (!m.architecture) out.emplace_back(ArchitectureUnknown{});
  for (Assumption a : m.assumptions) out.emplace_back(Assumed{a});
  const Precision& p = w.precision;
  if (p.compute_source != ComputeSource::asked && p.compute_source != ComputeSource::activations) {
    out.emplace_back(ComputeFromCheckpoint{p.compute_source, p.compute, p.checkpoint_compute, g.name, p.activations});
  }
  if (p.kv_from_checkpoint) out.emplace_back(KvFromCheckpoint{p.kv});
  // The kernel classes price it (not calibrated: a calibration's own ceilings turn them off) and
  // were fitted elsewhere: its file's, or the shipped model's (every GPU's tables together).
  const bool borrowed = g.expected ? g.expected->kernels && !g.expected->kernels->own_tables : true;
  if (!g.calibration && borrowed) out.emplace_back(ExpectedBorrowed{g.name, {}});
  if (!g.calibration && !borrowed && g.expected && g.expected->kernels && m.architecture) {
    std::vector<KernelClass> classes;
    for (const KernelClass k : g.expected->kernels->borrowed) {  // each once: the GPU reader refuses a repeat
      if (may_price(k, *m.architecture, w)) classes.push_back(k);
    }
    if (!classes.empty()) out.emplace_back(ExpectedBorrowed{g.name, std::move(classes)});
  }
  // Operators of the model's layer kinds that no class prices, where classes price the others (not
  // calibrated; a GPU file whose `expected:` has no kernels prices every operator end to end).
  if (m.architecture && (m.architecture->recurrent || m.architecture->mla) && !g.calibration &&
      (!g.expected || g.expected->kernels)) {
    if (const OperatorNames ops = unclassed_operators(*m.architecture, w); !ops.empty()) {
      out.emplace_back(ExpectedUnclassed{ops});
    }
  }
  // Arithmetic narrower than block weights the model stores, asked or the checkpoint's (an fp8
  // checkpoint that leaves its attention in bf16; fp32 weights beside 16-bit activations): which
  // classes.
  if (m.architecture) {
    const auto width = [](WeightFormat f) { return bytes_per_element(element_of(f)); };
    std::vector<std::string> classes;
    std::optional<WeightFormat> widest;
    for (TensorClass c : kBlockClasses) {
      const WeightFormat f = p.of(c);
      if (!holds(*m.architecture, c) || width(f) <= bytes_per_element(p.compute)) continue;
      classes.emplace_back(name(c));
      if (!widest || width(f) > width(*widest)) widest = f;
    }
    if (widest) out.emplace_back(ComputeNarrowerThanWeights{p.compute, *widest, std::move(classes)});
  }
  if (p.group_size_asked &&
      std::none_of(p.weights.begin(), p.weights.end(), [](WeightFormat f) { return takes_group_size(f); })) {
    std::vector<WeightFormat> formats;
    for (TensorClass c : kBlockClasses) {
      if (m.architecture && !holds(*m.architecture, c)) continue;
      if (std::find(formats.begin(), formats.end(), p.of(c)) == formats.end()) formats.push_back(p.of(c));
    }
    out.emplace_back(GroupSizeUnused{p.group_size, std::move(formats)});
  }
  const long longest = held_tokens(w);
  if (m.max_context && longest > *m.max_context) out.emplace_back(BeyondMaxContext{longest, *m.max_context});
  return out;
}

Report evaluate(const ModelSpec& model, const GpuSpec& gpu, const Workload& workload) {
  check(validate(model));
  check(validate(workload, model, gpu));
  Report r;
  r.workload = workload;
  Workload one = workload;
  one.batch = 1;
  one.microbatches = 0;
  // The summaries are filled where they lie: a GpuSpec is some 1.4 KB, and a temporary summary was
  // copied and then moved.
  r.gpu.spec = gpu;
  r.gpu.ceilings = gpu.ceilings(workload.precision.compute);
  const Ceilings& c = r.gpu.ceilings;
  std::optional<ExpectedModel> calibrated;
  const ExpectedModel& em = gpu.expected_model(calibrated);
  ParameterCount params;
  WeightBytes stored;
  DecodeWeights decode;
  // Where the weights lie and what a sequence holds on each GPU: the kept ones, read where they
  // are (a pipeline's hold a vector a stage), or a model known by its size alone's.
  WeightPlacement by_size;
  const WeightPlacement* placed = &by_size;
  // Prefill's and decode's operators are built in their results; of one sequence's, for the
  // critical batch, only the sums are taken (a sweep evaluates millions of points).
  OpTotals one_step;
  Bytes kv_per_token, cache_per_sequence;
  const SequenceFootprint none{};
  const SequenceFootprint* footprint = &none;
  const LayerStack *whole = nullptr, *split = nullptr;
  if (model.architecture) {
    // The layers are described for the whole model and, on more than one GPU a stage, for one GPU
    // of it; each thread keeps both from point to point (described_layers). Both keep a recurrent
    // state in the activation format (whole_model, sharding).
    whole = &described_layers(*model.architecture, whole_model(workload));
    if (workload.tp > 1) split = &described_layers(*model.architecture, sharding(workload));
    const LayerStack& shard = split ? *split : *whole;
    const Weighed& kept = weighed(*model.architecture, *whole, split, workload);
    const WeightPricing& pricing = kept.pricing;
    params = kept.weights.params;
    stored = kept.weights.bytes;
    decode = kept.decode;
    placed = &kept.placed;
    kv_per_token = kept.kv_per_token;
    if (workload.pp > 1) {
      const Architecture& a = *model.architecture;
      r.prefill = pipeline_phase(Phase::prefill, a, shard, workload, pricing, gpu, c, em, r.prefill_pipeline.emplace());
      r.decode.step = pipeline_phase(Phase::decode, a, shard, workload, pricing, gpu, c, em, r.decode_pipeline.emplace());
    } else {
      build_ops(r.prefill.ops, Phase::prefill, shard, workload, ExpertRouting::uniform, pricing);
      time_phase(r.prefill, c, gpu.interconnect, gpu.network);
      build_ops(r.decode.step.ops, Phase::decode, shard, workload, ExpertRouting::uniform, pricing);
      time_phase(r.decode.step, c, gpu.interconnect, gpu.network);
    }
    const OneSequence& alone = one_sequence(*model.architecture, *whole, shard, one, kept);
    one_step = alone.step;
    cache_per_sequence = alone.cache;
    footprint = &alone.footprint;
  } else {
    params = count_parameters(model);
    stored = weight_bytes(model.declared_params, workload.precision);
    decode = decode_weights(params, stored);
    by_size = {stored.total(), stored.total(), {}};
    r.prefill = evaluate_phase(build_ops(Phase::prefill, model, workload), c, gpu.interconnect, gpu.network);
    r.decode.step = evaluate_phase(build_ops(Phase::decode, model, workload), c, gpu.interconnect, gpu.network);
    one_step = totals_of(build_ops(Phase::decode, model, one, ExpertRouting::all));
  }
  r.model.spec = model;
  r.model.params = params.total();
  r.model.params_active = params.active();
  r.model.weight_bytes = stored.total();
  r.model.kv_bytes_per_token = kv_per_token;
  r.model.cache_bytes_per_sequence = cache_per_sequence;
  r.model.weight_bytes_by_class = stored.by_class;

  if (workload.pp == 1) {
    r.prefill.expected = expected_phase(r.prefill, em, c);
    r.decode.step.expected = expected_phase(r.decode.step, em, c);
  }
  r.decode.tokens_per_s = static_cast<double>(workload.batch) / r.decode.step.time.value();
  r.decode.expected_tokens_per_s = static_cast<double>(workload.batch) / r.decode.step.expected.time.value();
  r.decode.weight_read_time = r.decode.step.weight_bytes / c.bandwidth;
  // One sequence's, every expert read; a pipeline's step reads the weights once a micro-batch.
  r.critical_batch = critical_batch(decode, one_step, c, most_microbatches(workload));
  r.memory = memory_ledger(*placed, split ? split : whole, *footprint, gpu, workload);
  r.warnings = warnings_for(r);
  return r;
}

}  // namespace roofline
