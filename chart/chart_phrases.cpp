#include "chart/chart_phrases.hpp"

namespace roofline::chart {

namespace {

// The roofline's figures are bounds: a time at least, a rate (tokens/s, FLOP/s) at most. Only the
// expected curves and band are what real runs take, and they say "expected".
constexpr ChartPhrases kEnglish{
    .subtitle = "{model} on {gpu} · batch {batch} · context {context} · {weights} weights{layout}",
    .subtitle_layout = " · {layout}",
    .subtitle_does_not_fit = " · does not fit in memory",
    .prefill = "prefill",
    .decode = "decode",
    .compute_bound = "compute-bound",
    .memory_bound = "memory-bound",
    .interconnect_bound = "interconnect-bound",
    .step_time = "decode step time, at least",
    .this_workload = "this workload",
    .does_not_fit = "does not fit in memory",
    .roofline_title = "Roofline: prefill is {prefill}, decode {decode} ({dtype} compute)",
    .intensity_axis = "arithmetic intensity (FLOP per byte moved)",
    .performance_axis = "attainable performance",
    .bandwidth_curve = "memory bandwidth {bw}",
    .roof_curve = "{dtypes} roof {peak}",
    .ridge_rule = "ridge {ridge} FLOP/B",
    .operators_kind = "{phase} operators",
    .phase_kind = "{phase} (whole phase)",
    .operator_tooltip = "{phase} {op}: {x} FLOP/B, at most {y}, at least {time}, {bound}",
    .phase_tooltip = "{phase}: {x} FLOP/B, at most {y}, at least {time}, {bound}",
    .batch_title = "Decode against batch: step time and throughput, with B* and the memory limit",
    .batch_axis = "batch (sequences decoded together)",
    .step_axis = "decode step time",
    .throughput_axis = "throughput (tokens/s, whole group)",
    .memory_time = "memory time (all bytes at bandwidth)",
    .compute_time = "compute time (all FLOPs at peak)",
    .tokens_per_s = "tokens/s, at most",
    .expected_step = "expected step time (10-90% shaded)",
    .expected_tokens_per_s = "expected tokens/s",
    .expected_band = "expected, 10-90%",
    .critical_batch_rule = "B* = {bstar}",
    .critical_batch_kv_rule = "B* with KV at {t} tokens = {bstar}",
    .memory_full_batch = "memory full at batch {batch}",
    .batch_marker = "batch {batch}: at least {time}",
    .tokens_per_s_marker = "at most {tps} tokens/s",
    .context_title = "Decode against context: the KV cache read grows with every token",
    .context_axis = "context (tokens in the KV cache per sequence)",
    .step_time_at_batch = "decode step time at batch {batch}, at least",
    .reading_weights = "reading the weights",
    .cache_and_rest = "KV cache, activations, compute",
    .memory_full_context = "memory full at {t} tokens",
    .memory_full_any_context = "no context fits at batch {batch}",
    .context_marker = "context {t}: at least {time}",
    .max_context_rule = "model's max_context {t}",
};

// The terms of explain's Chinese (report/explain_phrases.cpp): 词元/秒, KV 缓存, 预填充, 解码; the step
// time is 单步耗时 (步长 would be a step's size, not its duration). The roofline's figures are bounds,
// said as explain says them: a time's 下界 or 至少, a rate's 上界 or 至多; 预期 is what runs take.
constexpr ChartPhrases kChinese{
    .subtitle = "{model} 在 {gpu} 上 · 批大小 {batch} · 上下文长度 {context} · {weights} 权重{layout}",
    .subtitle_layout = " · {layout}",
    .subtitle_does_not_fit = " · 显存放不下",
    .prefill = "预填充",
    .decode = "解码",
    .compute_bound = "计算受限",
    .memory_bound = "访存受限",
    .interconnect_bound = "互联受限",
    .step_time = "解码单步耗时下界",
    .this_workload = "本工作负载",
    .does_not_fit = "显存放不下",
    .roofline_title = "屋顶线：预填充{prefill}，解码{decode}（{dtype} 计算）",
    .intensity_axis = "算术强度（每搬运一字节的 FLOP）",
    .performance_axis = "可达性能",
    .bandwidth_curve = "显存带宽 {bw}",
    .roof_curve = "{dtypes} 算力上限 {peak}",
    .ridge_rule = "拐点 {ridge} FLOP/B",
    .operators_kind = "{phase}算子",
    .phase_kind = "{phase}（整个阶段）",
    .operator_tooltip = "{phase} {op}：{x} FLOP/B，至多 {y}，至少 {time}，{bound}",
    .phase_tooltip = "{phase}：{x} FLOP/B，至多 {y}，至少 {time}，{bound}",
    .batch_title = "解码随批大小变化：单步耗时与吞吐量，临界批大小 B* 与显存上限",
    .batch_axis = "批大小（一起解码的序列数）",
    .step_axis = "解码单步耗时",
    .throughput_axis = "吞吐量（词元/秒，全组合计）",
    .memory_time = "访存时间（全部字节按带宽计）",
    .compute_time = "计算时间（全部 FLOP 按峰值计）",
    .tokens_per_s = "词元/秒上界",
    .expected_step = "预期单步耗时（阴影为 10-90%）",
    .expected_tokens_per_s = "预期词元/秒",
    .expected_band = "预期，10-90%",
    .critical_batch_rule = "临界批大小 B* = {bstar}",
    .critical_batch_kv_rule = "计入 {t} 词元 KV 缓存的临界批大小 B* = {bstar}",
    .memory_full_batch = "批大小 {batch} 时显存已满",
    .batch_marker = "批大小 {batch}：至少 {time}",
    .tokens_per_s_marker = "至多 {tps} 词元/秒",
    .context_title = "解码随上下文长度变化：每多一个词元，KV 缓存的读取就多一份",
    .context_axis = "上下文长度（每个序列 KV 缓存中的词元数）",
    .step_time_at_batch = "批大小 {batch} 时的解码单步耗时下界",
    .reading_weights = "读取权重",
    .cache_and_rest = "KV 缓存、激活值与计算",
    .memory_full_context = "{t} 词元时显存已满",
    .memory_full_any_context = "批大小 {batch} 时任何上下文都放不下",
    .context_marker = "上下文长度 {t}：至少 {time}",
    .max_context_rule = "模型的 max_context {t}",
};

}  // namespace

const ChartPhrases& chart_phrases(std::string_view lang) { return lang == "zh" ? kChinese : kEnglish; }

std::string_view bound_phrase(const ChartPhrases& p, Bound b) {
  switch (b) {
    case Bound::compute: return p.compute_bound;
    case Bound::memory: return p.memory_bound;
    case Bound::interconnect: return p.interconnect_bound;
  }
  return p.memory_bound;  // unreachable: the switch names every Bound
}

}  // namespace roofline::chart
