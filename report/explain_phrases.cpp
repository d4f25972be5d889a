#include "report/explain_phrases.hpp"

#include <array>
#include <cctype>

namespace roofline::report {

namespace {

constexpr Phrases kEnglish{
    .ridge = "{model} on {gpu}: the ridge point is {peak} / {bw} = {ridge} FLOP/byte. An operation below that "
             "intensity waits on memory; above it, on compute.",
    .prefill = "Prefill: {n} prompt tokens pass through the model at once, so each weight read from memory is used "
               "{n} times: intensity {ip} FLOP/byte, {ratio}. It is {bound}-bound and takes at least {ttft}, "
               "the roofline's bound on the time to first token (expected {exp}).",
    .prefill_moe = "Prefill: {n} prompt tokens pass through the model at once, but a mixture of experts sends each "
                   "token to {k} of its {e} experts, so each expert's weights serve only the tokens routed to it: "
                   "intensity {ip} FLOP/byte, {ratio}. It is {bound}-bound and takes at least {ttft}, the roofline's bound on "
                   "the time to first token (expected {exp}).",
    .prefill_microbatches = "Prefill: {n} prompt tokens pass through the pipeline in {m} micro-batches of {upto}{per} "
                            "tokens, each reading its stage's weights again, so each weight read from memory is used "
                            "{upto}{per} times: intensity {ip} FLOP/byte, {ratio}. It is {bound}-bound and takes at least "
                            "{ttft}, the roofline's bound on the time to first token (expected {exp}).",
    .prefill_moe_microbatches = "Prefill: {n} prompt tokens pass through the pipeline in {m} micro-batches of {upto}{per} "
                                "tokens, each reading its stage's weights again, and a mixture of experts sends each "
                                "token to {k} of its {e} experts, so each expert's weights serve only the tokens of a "
                                "micro-batch routed to it: intensity {ip} FLOP/byte, {ratio}. It is {bound}-bound and "
                                "takes at least {ttft}, the roofline's bound on the time to first token (expected {exp}).",
    .at_most = "at most ",
    .only = "only ",
    .decode = "Decode: each step makes one token per sequence but {rereads} {weights} of weights ({formats}) and {kv} "
              "of KV cache and activations: intensity {id} FLOP/byte, {ratio}. It is {bound}-bound: T_decode ≈ "
              "{formula} = {floor}{longer}, so {stream}{total}.",
    .decode_longer = "; its {other}-bound operators make the step at least {step}",
    .decode_longer_parts = "; the step takes at least {step}",
    // The bubble is the busiest stage's idle share (model/pipeline.hpp); a lighter stage idles longer.
    .decode_bubble = "; the pipeline's busiest stage stands idle {pct}% of the step, the others longer ({m} "
                     "micro-batch(es) through {pp} stages: its bubble), which makes the step at least {step}",
    .decode_bubble_ops = "; its {other}-bound operators and the pipeline's bubble (its busiest stage idle {pct}% of the "
                         "step, the others longer; {m} micro-batch(es) through {pp} stages) make the step at least {step}",
    .decode_stage = "; the pipeline's busiest stage, with more than an even share of the work, makes the step at least {step}",
    .decode_stage_ops = "; its {other}-bound operators and the pipeline's busiest stage, with more than an even share of "
                        "the work, make the step at least {step}",
    .formula_memory = "bytes / bandwidth",
    .formula_compute = "FLOPs / peak",
    .formula_interconnect = "collective bytes / link bandwidth",
    .stream_one = "one stream gets at most {tps} tokens/s, {exp} expected",
    .stream_each = "each stream gets at most {tps} tokens/s at this batch, {exp} expected",
    .decode_batch_total = " (the batch of {b} makes at most {tps} tokens/s in all)",
    .cache_kinds = "Not every layer keeps every token: of the {layers} layers, {which}. At {t} tokens one sequence "
                   "holds {cache} of cache, and a decode step reads only what each layer keeps.",
    .cache_windowed = "{windowed} keep at most {w} tokens (a sliding window or a chunk)",
    .cache_recurrent = "{recurrent} are recurrent, with a fixed state per sequence",
    .cache_and = " and ",
    .expected = "Real runs do not reach the bound: a decode step is expected to take {exp} ({low} to {high} for 8 "
                "runs in 10), against the bound's {step}. Of it, {mem} is memory traffic, {traffic}{deq}; {compute}; {over} is fixed costs: {n} {kernels} "
                "at {launch} each on average, and {engine} a step of the serving engine's own (sampling, "
                "scheduling){comm}.",
    .expected_traffic_share = "moving at {eta}% of the bandwidth on average",
    .expected_traffic_hidden = "less than its bytes alone take at full bandwidth ({t}): the kernels overlap part of it "
                               "with their compute, counted there",
    .expected_dequant = ", {d} of it unpacking {fmt} weights, which stream slower than plain ones",
    .expected_dequant_mixed = ", {d} of it unpacking quantized weights, which stream slower than plain ones",
    .expected_compute_hidden = "{comp} is compute that the bound hides under the memory reads but a GEMM of only {b} "
                               "row(s) cannot (it waits for its weights, then computes)",
    .expected_compute_overlap = "{comp} is compute, which the bound overlaps with the memory reads (each operator taking "
                                "the longer of the two) but a kernel cannot overlap fully (it waits for its operands, "
                                "then computes)",
    .expected_comm = "; and {ar} is communication between the {devices}, each collective paying a latency per sequential hop ({hops} hops a step: {parts})",
    .kernel = "kernel",
    .kernels = "kernels",
    .batching = "Batching: {reads}, so the step barely grows with it: "
                "at context {t}, batch 1 takes at least {s1} (at most {tps1} tokens/s), batch 64 at least {s64} (at most {tps64} tokens/s in "
                "all, {ps64} a stream){fit64}. B* = {bstar} is where the weights' arithmetic catches up with their reading; "
                "at 2·B* = {b2} the step takes at least {s2} ({bound2}-bound){fit2}.",
    .batching_cache = "Batching: {reads}, but each sequence reads its "
                      "own KV cache, and here the cache dominates: at context {t}, batch 64 reads {kv64} of cache and "
                      "activations against {w} of weights, so the step grows with the batch: batch 1 takes at least {s1} (at most "
                      "{tps1} tokens/s), batch 64 at least {s64} (at most {tps64} tokens/s in all, {ps64} a stream){fit64}. B* = {bstar} "
                      "counts the weights only; at 2·B* = {b2} the step takes at least {s2} ({bound2}-bound){fit2}.",
    .batching_grows = "Batching: {reads}, but each sequence reads its "
                      "own KV cache: at context {t}, batch 64 reads {kv64} of cache and activations beside {w} of "
                      "weights, so the step grows with the batch: batch 1 takes at least {s1} (at most {tps1} tokens/s), batch 64 "
                      "at least {s64} (at most {tps64} tokens/s in all, {ps64} a stream){fit64}. B* = {bstar} counts the weights only; at "
                      "2·B* = {b2} the step takes at least {s2} ({bound2}-bound){fit2}.",
    // Under a pipeline each micro-batch reads its stage's weights again (model/critical_batch.hpp).
    .reads_once = "the weights are read once per step whatever the batch",
    .reads_microbatch = "the weights are read once a micro-batch, {m} times a step from batch {m} on and no more "
                        "beyond it",
    .batching_moe = "Batching a mixture of experts: each token reads only the experts it picks, so a larger batch "
                    "reads more of them: at context {t}, batch 1 takes at least {s1} (at most {tps1} tokens/s), batch 64 at "
                    "least {s64} (at most {tps64} tokens/s in all, {ps64} a stream){fit64}. The classic B* = {bstar} assumes every "
                    "weight is read {every}; at 2·B* = {b2} the step takes at least {s2} ({bound2}-bound){fit2}.",
    .every_step = "every step",
    .every_microbatch = "in each of a step's {m} micro-batches",
    .utilisation = "{Device} utilisation misleads in decode: the {device} is busy for the whole step, yet at batch {b} its "
                   "compute units do useful work for only {util}% of it ({ct} of the bound's {step}){rest}.",
    .utilisation_compute = "{Device} utilisation shows the {device} busy for the whole step, and at batch {b} decode is "
                           "compute-bound: its compute units do useful work for {util}% of it ({ct} of the bound's {step}){rest}.",
    .utilisation_rest = "; the rest is waiting on {what}",
    .wait_memory = "memory",
    .wait_link = "the collectives between the {devices}",
    .wait_stages = "the pipeline's other stages",
    .wait_and = " and ",
    .wait_comma = ", ",
    .beyond_memory = ", though memory holds {most} sequences at their full {len} tokens prefilled together, {steady} as "
                     "continuous batching holds them (one prompt a step)",
    .beyond_memory_none = ", though memory does not hold even one sequence here",
    .remedies_title = "What pays in each phase:",
    .remedy_prefill = "prefill: {flash}chunked prefill splits long prompts so that decode steps are not stalled behind "
                      "them.",
    .remedy_flash = "FlashAttention keeps the scores on chip (the bound {naive} with naive attention → {flash}); ",
    .remedy_decode = "decode: {remedies}.",
    .remedy_decode_none = "decode: none of int4 weights, batching, an fp8 KV cache or speculative decoding moves this "
                          "step by as much as 0.5%.",
    .remedy_and = "; ",
    .remedy_int4 = "int4 weights cut the bytes of a step (the bound {step} → {step_int4})",
    .remedy_kv8 = "an fp8 KV cache brings the bound to {step_kv8}",
    .remedy_speculative = "speculative decoding verifies {k} drafted tokens a sequence, {rows} rows with the token "
                          "before them, in at least {spec}, reading the weights and each sequence's cache once, instead of "
                          "at least {rows} × {step} for the {rows} tokens it yields when all are accepted",
    .remedy_speculative_state = "speculative decoding verifies {k} drafted tokens a sequence, {rows} rows with the "
                                "token before them, in at least {spec}, reading the weights and each sequence's cache once (a "
                                "recurrent layer's state read once and written at each of the {rows} rows, as vLLM "
                                "keeps it), instead of at least {rows} × {step} for the {rows} tokens it yields when all are "
                                "accepted",
    .remedy_batch_little = "batching to 64 raises throughput to at most {tps64} tokens/s for little latency (the bound {step} → {s64} a step)",
    .remedy_batch_grows = "batching to 64 raises throughput to at most {tps64} tokens/s, but each step takes at least {s64} against {step} now",
    .remedy_batch_memory = "batching raises throughput only as far as memory holds sequences: {most} at their full "
                           "{len} tokens as continuous batching holds them, at most {tps} tokens/s, each step at least {step}",
    .remedy_batch_over = "memory holds only {most} of these {b} sequences at their full {len} tokens, prefilled together",
    .remedy_batch_none = "batching needs memory first: not even one sequence fits here",
    .wrong_medicine = "Giving prefill's medicine to decode (more FLOPS) or decode's to prefill (more bandwidth) changes "
                      "little: each phase waits on the other resource.",
    .medicine_same = "Both phases are {bound}-bound here, so one medicine serves both: more {resource}.",
    .medicine_differ = "Prefill is {pbound}-bound and decode {dbound}-bound here: more {presource} is prefill's "
                       "medicine, more {dresource} decode's.",
    .quiz_title = "Self-test:",
    .q1 = "Why is decode {bound}-bound here?",
    .a1 = "Its intensity of {id} FLOP/byte is {ratio} ({ridge} FLOP/byte): {read} serves "
          "{only}{b} token(s){dp}{mb}{experts}.",
    .a1_compute = "Its intensity of {id} FLOP/byte is {ratio} ({ridge} FLOP/byte): {read} serves {upto}{b} "
                  "token(s){dp}{mb}{experts}, enough arithmetic to outlast the reading.",
    .a1_interconnect = "Its collectives take at least {comm} a step on the links between the {devices}, longer than its {mem} of "
                       "memory traffic at full bandwidth and its {comp} of compute at the peak.",
    .per_microbatch = " (one of {m} micro-batches, each reading its stage's weights again)",
    .per_expert = "; an expert's weights serve fewer, each token reaching {k} of the {e} experts",
    .q2 = "What is the single-stream ceiling?",
    .a2 = "{tps} tokens/s at batch 1: one step at context {t} cannot take less than {step}.",
    .q3 = "At what batch does decode turn compute-bound?",
    .a3 = "B* = {bstar}, counting the weights only.",
    .a3_context = " With the KV cache at {t} tokens: B* = {bctx}.",
    .a3_no_crossover = " With the KV cache at {t} tokens there is no crossover: decode stays memory-bound.",
    .a3_no_crossover_memory = " With the KV cache at {t} tokens there is no crossover: its compute never catches up "
                              "with its memory traffic, and at this batch memory bounds the step.",
    .a3_no_crossover_link = " With the KV cache at {t} tokens there is no crossover: its compute never catches up "
                            "with its memory traffic, and at this batch the interconnect bounds the step.",
    .scenario = "Scenario {name} ({n} in, {g} out): a request takes at least prefill {ttft} + {s} {steps} × {step} = "
                "{total} at the roofline bound (the first token comes out of prefill; expected {exp}); prefill is "
                "{share}% of that bound, decode {dshare}%.",
    .ranked_title = "Optimisations ranked by the time they save per request at the roofline bound:",
    .rank_line = "{i}. {what}: saves {saving} ({pct}%)",
    .rank_flash_in_use = "Already in use: FlashAttention, which saves {saving} ({pct}%) against naive attention",
    .int4 = "int4 weights",
    .kv8 = "fp8 KV cache",
    .flash = "FlashAttention (against naive attention)",
    .speculative = "speculative decoding, {rows} tokens per step ({k} drafts all accepted: an upper bound)",
    .above = "{x}× above the ridge point",
    .below = "{x}× below the ridge point",
    .compute = "compute",
    .memory = "memory",
    .interconnect = "interconnect",
    .more_compute = "FLOPS",
    .more_memory = "bandwidth",
    .more_interconnect = "interconnect bandwidth",
    .rereads = "re-reads",
    .rereads_each = "each {device} re-reads",
    .hops_ring = "{calls} × ring all-reduce over {k} {devices}, 2·({k} − 1) = {h} hops each",
    .hops_collective = "{calls} × {what} over {k} {devices}, {h} {hop} each",
    .hops_send = "{calls} × send between pipeline stages, {h} {hop} each",
    .hop = "hop",
    .hops = "hops",
    .hops_and = "; ",
    .all_reduce = "all-reduce",
    .all_gather = "all-gather",
    .reduce_scatter = "reduce-scatter",
    .all_to_all = "all-to-all",
    .a1_past = "Its intensity of {id} FLOP/byte is {ratio} ({ridge} FLOP/byte), though {read} serves {b} "
               "token(s){dp}{mb}: enough arithmetic for {gemms} to outlast their reading. What keeps the step "
               "memory-bound is {binders}.",
    .past_gemms = "most of its weight GEMMs",
    .past_gemms_moe = "most of its GEMMs outside the routed experts",
    .binder_cache = "the {cache} each sequence reads for itself (the operators reading it take {t} of the bound's {step} step)",
    .binder_experts = "the routed experts, whose weights serve only the tokens routed to them, each token reaching {k} "
                      "of the {e} experts (their operators take {t} of the bound's {step} step)",
    .binder_activations = "the activations its norms and elementwise operators read and write ({t} of the bound's {step} step)",
    .binder_and = " and ",
    .kv_cache = "KV cache",
    .kv_cache_state = "KV cache and recurrent state",
    .read_each = "each weight read",
    .read_each_dp = "each read of the weights other than the routed experts'",
    .per_rank = " (under data-parallel attention each {device} runs only its own {upto}{b} of the {n} sequences)",
    .per_expert_dp = "; the routed experts' weights serve the tokens that every {device}'s sequences route to them, "
                     "each token reaching {k} of the {e} experts",
    .step = "step",
    .steps = "steps",
};

constexpr Phrases kChinese{
    .ridge = "{model} 在 {gpu} 上：拐点（ridge point）= {peak} / {bw} = {ridge} FLOP/字节。算术强度低于它的操作在等内存，"
             "高于它的在等算力。",
    .prefill = "预填充（Prefill）：{n} 个提示词元一次性通过模型，每个从显存读出的权重被使用 {n} 次：算术强度 {ip} FLOP/字节，"
               "{ratio}。它受{bound}限制，耗时至少 {ttft}（屋顶线给出的首词元时间 TTFT 下界；预计 {exp}）。",
    .prefill_moe = "预填充（Prefill）：{n} 个提示词元一次性通过模型，但混合专家模型把每个词元只送往 {e} 个专家中的 {k} 个，"
                   "所以每个专家的权重只服务路由给它的词元：算术强度 {ip} FLOP/字节，{ratio}。它受{bound}限制，耗时至少 {ttft}"
                   "（屋顶线给出的首词元时间 TTFT 下界；预计 {exp}）。",
    .prefill_microbatches = "预填充（Prefill）：{n} 个提示词元分成 {m} 个微批次（每个{upto} {per} 个词元）通过流水线，每个微批次都要"
                            "重新读出所在阶段的权重，所以每个从显存读出的权重被使用{upto} {per} 次：算术强度 {ip} FLOP/字节，"
                            "{ratio}。它受{bound}限制，耗时至少 {ttft}（屋顶线给出的首词元时间 TTFT 下界；预计 {exp}）。",
    .prefill_moe_microbatches = "预填充（Prefill）：{n} 个提示词元分成 {m} 个微批次（每个{upto} {per} 个词元）通过流水线，每个微批次都要"
                                "重新读出所在阶段的权重；混合专家模型又把每个词元只送往 {e} 个专家中的 {k} 个，所以每个专家的权重只服务"
                                "一个微批次中路由给它的词元：算术强度 {ip} FLOP/字节，{ratio}。它受{bound}限制，耗时至少 {ttft}"
                                "（屋顶线给出的首词元时间 TTFT 下界；预计 {exp}）。",
    .at_most = "至多",
    .only = "只",
    .decode = "解码（Decode）：每一步每个序列只生成一个词元，却要{rereads} {weights} 权重（{formats}）和 {kv} KV 缓存与激活值：算术强度 {id} "
              "FLOP/字节，{ratio}。它受{bound}限制：T_decode ≈ {formula} = {floor}{longer}，{stream}{total}。",
    .decode_longer = "；其中受{other}限制的算子使单步耗时至少为 {step}",
    .decode_longer_parts = "；单步耗时至少为 {step}",
    .decode_bubble = "；流水线最忙的阶段也有 {pct}% 的时间空等，其余阶段更多（{m} 个微批次流经 {pp} 个阶段：流水线气泡），使单步耗时至少为 {step}",
    .decode_bubble_ops = "；受{other}限制的算子和流水线气泡（最忙的阶段也有 {pct}% 的时间空等，其余阶段更多；{m} 个微批次流经 {pp} 个阶段）使单步耗时至少为 {step}",
    .decode_stage = "；流水线中工作量多于平均份额的最忙阶段决定了节奏，使单步耗时至少为 {step}",
    .decode_stage_ops = "；受{other}限制的算子和流水线中工作量多于平均份额的最忙阶段使单步耗时至少为 {step}",
    .formula_memory = "字节数 / 带宽",
    .formula_compute = "浮点运算量 / 峰值算力",
    .formula_interconnect = "通信字节数 / 互联带宽",
    .stream_one = "单路生成至多 {tps} 词元/秒，预计 {exp} 词元/秒",
    .stream_each = "此批大小下每路至多 {tps} 词元/秒，预计 {exp} 词元/秒",
    .decode_batch_total = "（批 {b} 合计至多 {tps} 词元/秒）",
    .cache_kinds = "并非每一层都保留全部词元：{layers} 层中，{which}。{t} 个词元时一个序列占用 {cache} 缓存，解码每一步也只读取每层保留的部分。",
    .cache_windowed = "{windowed} 层最多保留 {w} 个词元（滑动窗口或分块）",
    .cache_recurrent = "{recurrent} 层是循环层，每个序列只保存固定大小的状态",
    .cache_and = "，",
    .expected = "实际运行达不到屋顶线的下界：一个解码步预计需要 {exp}（十次运行中八次在 {low} 到 {high} 之间），而下界是 {step}。"
                "其中 {mem} 是内存读写，{traffic}{deq}；{compute}；{over} 是固定开销：{n} {kernels}、平均每个 {launch}，以及服务引擎自身每步 {engine}（采样、调度）{comm}。",
    .expected_traffic_share = "平均达到带宽的 {eta}%",
    .expected_traffic_hidden = "少于这些字节按满带宽所需的 {t}：核函数把其中一部分与计算重叠，计入了计算",
    .expected_dequant = "，其中 {d} 用于解包 {fmt} 权重，它们比普通权重流得更慢",
    .expected_dequant_mixed = "，其中 {d} 用于解包量化权重，它们比普通权重流得更慢",
    .expected_compute_hidden = "{comp} 是计算时间：下界把它藏在内存读取之下，但 {b} 行的小矩阵乘法做不到（它先等权重，再计算）",
    .expected_compute_overlap = "{comp} 是计算时间：下界让它与内存读取重叠（每个算子取两者中较长的），但核函数做不到完全重叠"
                                "（它先等操作数，再计算）",
    .expected_comm = "；还有 {ar} 是{device}之间的通信，每个集合通信的每一跳都要付一次延迟（每步共 {hops} 跳：{parts}）",
    .kernel = "个核函数",
    .kernels = "个核函数",
    .batching = "批处理：{reads}，所以单步耗时随批几乎不变：上下文 {t} 时，批 1 每步至少 {s1}"
                "（至多 {tps1} 词元/秒），批 64 至少 {s64}（合计至多 {tps64} 词元/秒，每路 {ps64}）{fit64}。B* = {bstar} 是权重的计算量追上其读取的批大小；"
                "到 2·B* = {b2} 时至少 {s2}（受{bound2}限制）{fit2}。",
    .batching_cache = "批处理：{reads}，但每个序列要读自己的 KV 缓存，而这里缓存占主导：上下文 {t} 时，批 64 "
                      "读取 {kv64} 缓存与激活值，权重只有 {w}，所以单步耗时随批增长：批 1 每步至少 {s1}（至多 {tps1} 词元/秒），批 64 至少 {s64}"
                      "（合计至多 {tps64} 词元/秒，每路 {ps64}）{fit64}。B* = {bstar} 只计权重；到 2·B* = {b2} 时至少 {s2}（受{bound2}限制）{fit2}。",
    .batching_grows = "批处理：{reads}，但每个序列要读自己的 KV 缓存：上下文 {t} 时，批 64 读取 {kv64} 缓存与激活值，"
                      "另有 {w} 权重，所以单步耗时随批增长：批 1 每步至少 {s1}（至多 {tps1} 词元/秒），批 64 至少 {s64}（合计至多 {tps64} 词元/秒，"
                      "每路 {ps64}）{fit64}。B* = {bstar} 只计权重；到 2·B* = {b2} 时至少 {s2}（受{bound2}限制）{fit2}。",
    .reads_once = "无论批大小，每步权重只读一次",
    .reads_microbatch = "每个微批读一次权重，从批 {m} 起每步 {m} 次，批再大也不再增加",
    .batching_moe = "混合专家模型的批处理：每个词元只读取它选中的专家，所以批越大读到的专家越多：上下文 {t} 时，批 1 每步至少 {s1}"
                    "（至多 {tps1} 词元/秒），批 64 至少 {s64}（合计至多 {tps64} 词元/秒，每路 {ps64}）{fit64}。经典的 B* = {bstar} 假设{every}读出全部权重；到 2·B* = {b2} 时至少 {s2}（受{bound2}限制）{fit2}。",
    .every_step = "每步",
    .every_microbatch = "每步的 {m} 个微批各",
    .utilisation = "解码阶段的{device}利用率具有误导性：整个单步耗时内{device}都显示忙碌，但在批 {b} 时计算单元只有 {util}% 的时间在做有用功"
                   "（下界 {step} 中的 {ct}）{rest}。",
    .utilisation_compute = "{Device}利用率显示整个单步耗时内{device}都在忙碌，而批 {b} 时解码受算力限制：计算单元有 {util}% 的时间在做有用功"
                           "（下界 {step} 中的 {ct}）{rest}。",
    .utilisation_rest = "，其余时间都在等{what}",
    .wait_memory = "内存",
    .wait_link = "{devices}之间的集合通信",
    .wait_stages = "流水线的其他阶段",
    .wait_and = "和",
    .wait_comma = "、",
    .beyond_memory = "，但序列长到 {len} 个词元时，一起预填充显存只放得下 {most} 个序列，连续批处理（每步一个提示）时为 {steady} 个",
    .beyond_memory_none = "，但这里显存连一个序列都放不下",
    .remedies_title = "各阶段真正有效的优化：",
    .remedy_prefill = "预填充：{flash}分块预填充（chunked prefill）把长提示切开，避免解码步被长时间阻塞。",
    .remedy_flash = "FlashAttention 把注意力分数留在片上（下界：朴素注意力 {naive} → {flash}）；",
    .remedy_decode = "解码：{remedies}。",
    .remedy_decode_none = "解码：int4 权重、批处理、fp8 KV 缓存和投机解码都不能让这一步的耗时变化 0.5% 以上。",
    .remedy_and = "；",
    .remedy_int4 = "int4 权重减少每步读取的字节（下界 {step} → {step_int4}）",
    .remedy_kv8 = "fp8 KV 缓存使下界降至 {step_kv8}",
    .remedy_speculative = "投机解码每步验证每个序列的 {k} 个草稿词元（连同其前一个词元共 {rows} 行），权重和各序列的缓存都只读一次，"
                          "耗时至少 {spec}，而草稿全部被接受时得到的 {rows} 个词元逐步解码至少需 {rows} × {step}",
    .remedy_speculative_state = "投机解码每步验证每个序列的 {k} 个草稿词元（连同其前一个词元共 {rows} 行），权重和各序列的缓存都只读"
                                "一次（循环层的状态读一次、{rows} 行各写一次，与 vLLM 一致），耗时至少 {spec}，而草稿全部被接受时得到的 "
                                "{rows} 个词元逐步解码至少需 {rows} × {step}",
    .remedy_batch_little = "批处理到 64 时吞吐上界升至 {tps64} 词元/秒，延迟几乎不变（每步下界 {step} → {s64}）",
    .remedy_batch_grows = "批处理到 64 时吞吐上界升至 {tps64} 词元/秒，但每步下界从现在的 {step} 增至 {s64}",
    .remedy_batch_memory = "批处理只能做到显存放得下的序列数：序列长到 {len} 个词元时连续批处理可放 {most} 个，吞吐至多 {tps} 词元/秒，每步至少 {step}",
    .remedy_batch_over = "这 {b} 个序列长到 {len} 个词元时，一起预填充显存只放得下 {most} 个",
    .remedy_batch_none = "批处理先要有显存：这里连一个序列都放不下",
    .wrong_medicine = "把预填充的药（更多算力）开给解码，或把解码的药（更多带宽）开给预填充，收效甚微：两个阶段在等不同的资源。",
    .medicine_same = "这里两个阶段都受{bound}限制，同一味药对两者都有效：更多{resource}。",
    .medicine_differ = "这里预填充受{pbound}限制，解码受{dbound}限制：预填充的药是更多{presource}，解码的药是更多{dresource}。",
    .quiz_title = "自测题：",
    .q1 = "为什么这里的解码受{bound}限制？",
    .a1 = "其算术强度 {id} FLOP/字节，{ratio}（{ridge} FLOP/字节）：{read}{only}服务 {b} 个词元{dp}{mb}{experts}。",
    .a1_compute = "其算术强度 {id} FLOP/字节，{ratio}（{ridge} FLOP/字节）：{read}服务{upto} {b} 个词元{dp}{mb}{experts}，"
                  "计算耗时长于读取耗时。",
    .a1_interconnect = "它的集合通信每步在{device}之间的链路上至少耗时 {comm}，长于满带宽下 {mem} 的内存读写和峰值算力下 {comp} 的计算。",
    .per_microbatch = "（{m} 个微批次之一，每个都重新读出所在阶段的权重）",
    .per_expert = "；专家权重服务的更少：每个词元只到达 {e} 个专家中的 {k} 个",
    .q2 = "单路生成的上限是多少？",
    .a2 = "批 1 时 {tps} 词元/秒：上下文 {t} 时一步不可能快于 {step}。",
    .q3 = "批大小到多少时解码转为受算力限制？",
    .a3 = "B* = {bstar}（仅计权重）。",
    .a3_context = "计入 {t} 个词元的 KV 缓存时：B* = {bctx}。",
    .a3_no_crossover = "计入 {t} 个词元的 KV 缓存时没有交点：解码始终受内存限制。",
    .a3_no_crossover_memory = "计入 {t} 个词元的 KV 缓存时没有交点：计算始终追不上内存读写，而在此批大小下单步受内存带宽限制。",
    .a3_no_crossover_link = "计入 {t} 个词元的 KV 缓存时没有交点：计算始终追不上内存读写，而在此批大小下单步受互联带宽限制。",
    .scenario = "场景 {name}（输入 {n}，输出 {g}）：按屋顶线下界，一个请求至少需要预填充 {ttft} + {s} {steps} × {step} = {total}"
                "（首个词元由预填充产生；预计 {exp}）；预填充占其中的 {share}%，解码占 {dshare}%。",
    .ranked_title = "按每个请求在屋顶线下界上节省的时间排序的优化：",
    .rank_line = "{i}. {what}：节省 {saving}（{pct}%）",
    .rank_flash_in_use = "已在使用：FlashAttention，相对朴素注意力节省 {saving}（{pct}%）",
    .int4 = "int4 权重",
    .kv8 = "fp8 KV 缓存",
    .flash = "FlashAttention（相对朴素注意力）",
    .speculative = "投机解码，每步 {rows} 个词元（{k} 个草稿全部接受：上限）",
    .above = "为拐点的 {x} 倍",
    .below = "仅为拐点的 1/{x}",
    .compute = "算力",
    .memory = "内存带宽",
    .interconnect = "互联带宽",
    .more_compute = "算力",
    .more_memory = "内存带宽",
    .more_interconnect = "互联带宽",
    .rereads = "重新读出",
    .rereads_each = "在每个{device}上重新读出",
    .hops_ring = "{calls} 次 {k} 个{device}上的环形全归约，每次 2·({k} − 1) = {h} 跳",
    .hops_collective = "{calls} 次 {k} 个{device}上的{what}，每次 {h} {hop}",
    .hops_send = "{calls} 次流水线阶段之间的发送，每次 {h} {hop}",
    .hop = "跳",
    .hops = "跳",
    .hops_and = "；",
    .all_reduce = "全归约",
    .all_gather = "全收集",
    .reduce_scatter = "归约散射",
    .all_to_all = "全交换",
    .a1_past = "其算术强度 {id} FLOP/字节，{ratio}（{ridge} FLOP/字节），尽管{read}服务 {b} 个词元{dp}{mb}，计算量已足以让{gemms}"
               "的计算耗时长于读取耗时。让这一步仍受内存带宽限制的是{binders}。",
    .past_gemms = "大多数权重矩阵乘法",
    .past_gemms_moe = "路由专家之外的大多数矩阵乘法",
    .binder_cache = "每个序列各自读取的 {cache}（读取它的算子耗时 {t}，单步下界共 {step}）",
    .binder_experts = "路由专家：其权重只服务路由给它的词元，每个词元只到达 {e} 个专家中的 {k} 个（其算子耗时 {t}，单步下界共 {step}）",
    .binder_activations = "范数和逐元素算子读写的激活值（耗时 {t}，单步下界共 {step}）",
    .binder_and = "，以及",
    .kv_cache = "KV 缓存",
    .kv_cache_state = "KV 缓存和循环状态",
    .read_each = "每次读出的权重",
    .read_each_dp = "除路由专家外，每次读出的权重",
    .per_rank = "（数据并行注意力下每个{device}只运行 {n} 个序列中自己的{upto} {b} 个）",
    .per_expert_dp = "；路由专家的权重服务所有{device}的序列路由给它的词元，每个词元只到达 {e} 个专家中的 {k} 个",
    .step = "步",
    .steps = "步",
};

// The words for each kind of device. In Chinese a Latin name is set off by spaces inside a
// sentence and a Chinese word is not; several GPUs are 多卡 ("several cards"), as the sentences
// said before other devices were named.
constexpr std::array<DeviceWords, 4> kEnglishDevices{{
    {"GPU", "GPUs", "GPU"},
    {"TPU", "TPUs", "TPU"},
    {"CPU", "CPUs", "CPU"},
    {"accelerator", "accelerators", "Accelerator"},
}};
constexpr std::array<DeviceWords, 4> kChineseDevices{{
    {" GPU ", "多卡", "GPU "},
    {" TPU ", "多个 TPU ", "TPU "},
    {" CPU ", "多个 CPU ", "CPU "},
    {"加速器", "多个加速器", "加速器"},
}};

// Whole words of the name, as it spells them.
bool has_word(std::string_view name, std::string_view word) {
  for (std::size_t at = name.find(word); at != std::string_view::npos; at = name.find(word, at + 1)) {
    const bool starts = at == 0 || std::isalnum(static_cast<unsigned char>(name[at - 1])) == 0;
    const std::size_t end = at + word.size();
    const bool ends = end == name.size() || std::isalnum(static_cast<unsigned char>(name[end])) == 0;
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

const Phrases& phrases(std::string_view lang) { return lang == "zh" ? kChinese : kEnglish; }

DeviceKind device_kind(std::string_view name) {
  if (has_word(name, "TPU")) return DeviceKind::tpu;
  if (has_word(name, "CPU") || name.starts_with("cpu:")) return DeviceKind::cpu;
  if (has_word(name, "GPU") || name.starts_with("cuda:") || has_word(name, "NVIDIA") || has_word(name, "Instinct") ||
      has_word(name, "Radeon")) {
    return DeviceKind::gpu;
  }
  return DeviceKind::accelerator;
}

const DeviceWords& device_words(DeviceKind kind, std::string_view lang) {
  return (lang == "zh" ? kChineseDevices : kEnglishDevices)[static_cast<std::size_t>(kind)];
}

}  // namespace roofline::report
