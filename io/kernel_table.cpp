#include "io/kernel_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "io/csv_records.hpp"
#include "io/input_error.hpp"
#include "io/moe_routing.hpp"
#include "io/text_file.hpp"
#include "model/operators.hpp"

namespace roofline::io {

namespace {

// aiconfigurator's GEMM table on one GPU is 100k rows (4 MB); a factor of 64 over the largest.
// The tables are at most 4 MB; a row held takes some 26 times its text, so 32 MiB is under 1 GB.
constexpr std::size_t kMaxTableBytes = 32U << 20;

// The kinds of table, each by the columns its header has (a set: order is free).
struct Kind {
  std::string_view name;
  std::vector<std::string_view> columns;
  bool fitted = true;  // false: recognised, but no class of the fit reads it yet
  std::string_view why = {};  // !fitted: why, where more than "no class yet" is known
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k = {
      {"gemm", {"gemm_dtype", "m", "n", "k", "latency_us"}},
      {"generation_attention",
       {"batch_size", "num_heads", "num_key_value_heads", "head_dim", "window_size", "attn_dtype", "kv_cache_dtype",
        "step", "latency_us"}},
      {"context_attention",
       {"batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim", "window_size", "attn_dtype",
        "kv_cache_dtype", "latency_us"}},
      {"custom_allreduce", {"allreduce_dtype", "num_gpus", "message_size", "latency_us"}},
      {"nccl", {"op_name", "nccl_dtype", "num_gpus", "message_size", "latency_us"}},
      {"vidur_ops",
       {"n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size", "use_gated_mlp", "num_tokens",
        "num_tensor_parallel_workers", "emb_ms", "input_layernorm_ms", "attn_pre_proj_ms", "attn_rope_ms",
        "attn_post_proj_ms", "post_attention_layernorm_ms", "mlp_up_proj_ms", "mlp_act_ms", "mlp_down_proj_ms",
        "add_ms"}},
      {"vidur_all_reduce", {"num_workers", "size", "collective", "devices_per_node", "max_devices_per_node", "median_ms"}},
      {"moe", {"op_name", "moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk", "num_experts", "moe_tp_size",
               "moe_ep_size", "distribution", "latency_us"}},
      {"mla", {"op_name", "mla_dtype", "kv_cache_dtype", "num_heads", "batch_size", "isl", "tp_size", "step",
               "latency_us"}},
      {"gdn", {"op_name", "phase", "batch_size", "seq_len", "num_tokens", "d_model", "d_conv", "num_k_heads",
               "head_k_dim", "num_v_heads", "head_v_dim", "model_name", "latency_us"}},
      {"mamba2", {"op_name", "phase", "batch_size", "seq_len", "num_tokens", "d_model", "d_state", "d_conv", "nheads",
                  "head_dim", "n_groups", "chunk_size", "model_name", "latency_us"}, false,
       // aiconfigurator times a causal convolution and a state scan (or update) for each shape, two
       // rows of one key; the table keeps one a key, and its times are the convolution's (at
       // batch 1024 they would put a decode's 1 GB of state through at 13-33x the bandwidth).
       "the Mamba-2 scan is not in it (one row a shape: the causal convolution's time alone), so no class"},
      {"dsa", {"op_name", "model", "architecture", "mla_dtype", "kv_cache_dtype", "gemm_type", "num_heads",
               "batch_size", "isl", "tp_size", "step", "latency_us"}, false,
       "a whole DeepSeek-V3.2 sparse-attention module (projections, indexer, top-k and attention in one time): "
       "no class of its own yet"},
      {"fp8_scale", {"m", "k", "quant_dtype", "latency_us"}, false},
      {"vidur_send_recv", {"num_workers", "size", "collective", "devices_per_node", "max_devices_per_node", "median_ms"},
       false},
  };
  return k;
}

constexpr double kMostCount = 1e12;
constexpr double kMostPicks = 1 << 24, kMostExperts = 1 << 16;

// An error whose text may quote a cell: a NUL byte in it shown as U+FFFD, as the terminal shows
// every other control byte (report::terminal_text). Kept, it ended the message where it stood (an
// exception's text is a C string): "`3" for a cell of 3 and a NUL.
InputError input_error(std::string what) {
  for (std::size_t at = what.find('\0'); at != std::string::npos; at = what.find('\0', at + 3)) {
    what.replace(at, 1, "\xEF\xBF\xBD");
  }
  return InputError(what);
}

// A row's cells by column name, each read as the number it must be.
class Row {
 public:
  Row(const CsvRecord& r, const std::map<std::string, std::size_t, std::less<>>& at, const std::string& path)
      : r_(r), at_(at), path_(path) {}

  [[nodiscard]] const std::string& text(std::string_view column) const {
    const std::size_t i = at_.find(column)->second;
    if (i >= r_.cells.size()) throw error(column, "is missing (the row is shorter than the header)");
    return r_.cells[i];
  }
  // A finite number ≥ `lowest`; `positive`: > 0 as well.
  [[nodiscard]] double number(std::string_view column, bool positive = false, double lowest = 0) const {
    const std::string& s = text(column);
    const std::optional<double> v = csv_number(s);
    if (!v) throw error(column, fmt::format("`{}` is not a number", s));
    if (positive && !(*v > 0)) throw error(column, fmt::format("must be above 0, got {}", s));
    if (*v < lowest) throw error(column, fmt::format("must be at least {}, got {}", lowest, s));
    return *v;
  }
  // A size: a whole number, at most 10^12 (a GEMM's side, a message's elements: the tables reach
  // 5.4 × 10^8); past it a typo, which the fit would take as a kernel 10^-16 of its bound.
  [[nodiscard]] double count(std::string_view column) const { return whole(column, 1); }
  // The same that may be 0 (a window of none, a decode's first step). Read as any number, a step
  // of 1e200 took the fit's figures to inf and NaN and crashed it.
  [[nodiscard]] double tokens(std::string_view column) const { return whole(column, 0); }
  // A collective's GPUs: two at least (on one, an all-reduce moves nothing, and its bound is 0).
  [[nodiscard]] double gpus(std::string_view column) const {
    const double v = count(column);
    if (v < 2) throw error(column, fmt::format("a collective runs on 2 GPUs at least, got {}", text(column)));
    return v;
  }
  // A latency: a finite time above zero, in seconds from the column's unit, within 1 ns … 1000 s
  // (the tables' shortest is 1.1 µs, their longest 0.6 s): past them a unit or a typo, which moved
  // the GEMM's overlap from 5.43 to 2.22 at 1e300 µs, and to its bound at 1e-300.
  [[nodiscard]] double seconds(std::string_view column, double unit) const {
    const double s = number(column, true) * unit;
    if (s < 1e-9 || s > 1e3) {
      throw error(column, fmt::format("`{}` is not a kernel's time: {} s is outside 1 ns … 1000 s", text(column), s));
    }
    return s;
  }
  // Bytes an element of a dtype the column names, from `known`.
  [[nodiscard]] double element_bytes(std::string_view column, const std::map<std::string, double, std::less<>>& known) const {
    const std::string& s = text(column);
    const auto it = known.find(s);
    if (it == known.end()) {
      std::vector<std::string> names;
      for (const auto& [n, b] : known) names.push_back(n);
      throw error(column, fmt::format("`{}` is not a dtype this table's fit knows ({})", s, fmt::join(names, ", ")));
    }
    return it->second;
  }
  [[nodiscard]] InputError error(std::string_view column, const std::string& what) const {
    return input_error(fmt::format("{}:{}: column `{}`: {}", path_, r_.line, column, what));
  }
  [[nodiscard]] std::size_t line() const { return r_.line; }

 private:
  // A whole number ≥ `lowest` (above 0 where that is), at most 10^12.
  [[nodiscard]] double whole(std::string_view column, double lowest) const {
    const double v = number(column, lowest > 0, lowest);
    if (v != std::floor(v)) throw error(column, fmt::format("must be a whole number, got {}", text(column)));
    if (v > kMostCount) throw error(column, fmt::format("must be at most 1e12, got {}", text(column)));
    return v;
  }

  const CsvRecord& r_;
  const std::map<std::string, std::size_t, std::less<>>& at_;
  const std::string& path_;
};

const std::map<std::string, double, std::less<>> kSixteenBit = {{"bfloat16", 2}, {"float16", 2}, {"half", 2}};
// NCCL's element types as nccl-tests name them.
const std::map<std::string, double, std::less<>> kNccl = {{"bfloat16", 2}, {"float16", 2}, {"half", 2},
                                                           {"int8", 1},     {"fp8", 1},     {"float", 4}};
const std::map<std::string, double, std::less<>> kAttention = {{"bfloat16", 2}, {"float16", 2}, {"fp8", 1}};

// Keys the queries of a causal prompt of n see in all, as the engine counts them, under a window.
double causal_pairs(double n, double window) { return pairs_seen(n, AttentionStep{.window = window}); }

void gemm(const Row& r, KernelTable& t) {
  const std::string& dtype = r.text("gemm_dtype");
  const double m = r.count("m"), n = r.count("n"), k = r.count("k"), s = r.seconds("latency_us", 1e-6);
  if (dtype == "fp8_block") {
    // fp8 operands scaled in blocks, a 16-bit output; the activations' quantization reads them at
    // 16 bits and writes them at 8 (its scales, one a 128, not counted). N rides in `width`.
    KernelAsk a{2 * m * n * k, m * k + k * n + 2 * m * n, m, 3 * m * k};
    a.stream_bytes = k * n;
    a.width = n;
    t.samples.push_back({KernelClass::gemm_fp8_block, a, s, r.line()});
    return;
  }
  if (dtype == "fp8") {
    // fp8 operands, a 16-bit output; the scale kernels read the 16-bit activations twice (the
    // absolute maximum, then the quantisation) and write them as fp8.
    t.samples.push_back({KernelClass::gemm_fp8, {2 * m * n * k, m * k + k * n + 2 * m * n, m, 5 * m * k, 1, 0, 0, 0, k * n},
                         s, r.line()});
    return;
  }
  const bool any_gemm = std::any_of(t.samples.begin(), t.samples.end(), [](const KernelSample& x) { return x.klass == KernelClass::gemm; });
  if (dtype == "float32") {
    // A CPU's calibration (calibrate --kernel-table): fp32 operands, against the fp32 peak.
    if (any_gemm && !t.fp32_gemms) throw r.error("gemm_dtype", "float32 after 16-bit GEMMs: one peak a table");
    t.fp32_gemms = true;
    t.samples.push_back({KernelClass::gemm, {2 * m * n * k, 4 * (m * k + k * n + m * n), m, 0, 1, 0, 0, 0, 4 * k * n}, s,
                         r.line()});
    return;
  }
  (void)r.element_bytes("gemm_dtype", kSixteenBit);  // a 16-bit dtype, or refused
  if (t.fp32_gemms) throw r.error("gemm_dtype", fmt::format("{} after float32 GEMMs: one peak a table", dtype));
  t.samples.push_back({KernelClass::gemm, {2 * m * n * k, 2 * (m * k + k * n + m * n), m, 0, 1, 0, 0, 0, 2 * k * n}, s,
                       r.line()});
}

// A row's KV heads: each serves a whole group of its query heads (grouped-query attention), so
// they are at most num_heads and divide it; 8 heads over 64 KV heads, or 64 over 48, is no kernel.
double kv_heads(const Row& r, double heads) {
  const double kv = r.count("num_key_value_heads");
  if (kv > heads) {
    throw r.error("num_key_value_heads", fmt::format("must be at most num_heads ({}), got {}", heads, r.text("num_key_value_heads")));
  }
  if (std::fmod(heads, kv) != 0) {
    throw r.error("num_key_value_heads", fmt::format("must divide num_heads ({}), got {}: each KV head serves a whole group "
                                                     "of query heads", heads, r.text("num_key_value_heads")));
  }
  return kv;
}

// One query a sequence against `step` cached tokens (and itself), a window capping them.
void generation_attention(const Row& r, KernelTable& t) {
  const double b = r.count("batch_size"), h = r.count("num_heads"), kv = kv_heads(r, h);
  const double d = r.count("head_dim"), window = r.tokens("window_size"), step = r.tokens("step");
  const double q_bytes = r.element_bytes("attn_dtype", kAttention), kv_bytes = r.element_bytes("kv_cache_dtype", kAttention);
  const double keys = window > 0 ? std::min(step + 1, window) : step + 1;
  // K and V of every key read once a sequence; the query read and the output written.
  const double bytes = b * kv * d * 2 * keys * kv_bytes + b * h * d * 2 * q_bytes;
  KernelAsk a{4 * b * h * d * keys, bytes, 1, 0, 1, b * h, d, 0, b * kv * d * 2 * keys * kv_bytes};
  a.sequences = b;
  a.kv_heads = b * kv;
  a.keys = keys;
  a.context = step + 1;
  a.kv_bytes = kv_bytes;
  t.samples.push_back({KernelClass::decode_attention, a, r.seconds("latency_us", 1e-6), r.line()});
}

void context_attention(const Row& r, KernelTable& t) {
  const double b = r.count("batch_size"), n = r.count("isl"), h = r.count("num_heads"), kv = kv_heads(r, h);
  const double d = r.count("head_dim"), window = r.tokens("window_size");
  const double q_bytes = r.element_bytes("attn_dtype", kAttention);
  const double kv_bytes = r.element_bytes("kv_cache_dtype", kAttention);
  if (q_bytes == 1) {
    ++t.left_out["fp8 attention: not the 16-bit class"];
    return;
  }
  const double bytes = b * n * d * (2 * h + 2 * kv) * q_bytes;
  // TensorRT-LLM's context FMHA skips whole blocks of masked keys only: under a window it computes
  // more keys than the window's, which its class prices (window_keys). The FLOPs are the window's.
  const double flops = 4 * b * h * d * causal_pairs(n, window);
  // Over an fp8 cache the FMHA may multiply in fp8 (1262 TFLOP/s measured at 12k tokens on an H100,
  // past its 989 at 16 bits): its roofline counts those FLOPs at the fp8 peak, twice the 16-bit
  // one on every GPU of these tables.
  KernelAsk a{flops, bytes, n, 0, 1, b * h, d, kv_bytes == 1 ? flops / 2 : 0, 0};
  a.window = window;
  t.samples.push_back({KernelClass::prefill_attention, a, r.seconds("latency_us", 1e-6), r.line()});
}

void collective(const Row& r, KernelTable& t, KernelClass c, double bytes, double gpus, double seconds,
                std::string_view column = "latency_us") {
  t.samples.push_back({c, {0, bytes, 0, 0, static_cast<int>(gpus)}, seconds, r.line(), column});
}

void custom_allreduce(const Row& r, KernelTable& t) {
  const double eb = r.element_bytes("allreduce_dtype", kSixteenBit), gpus = r.gpus("num_gpus");
  // message_size is in elements (the tables' README).
  collective(r, t, KernelClass::all_reduce, eb * r.count("message_size"), gpus, r.seconds("latency_us", 1e-6));
}

void nccl(const Row& r, KernelTable& t) {
  const std::string& op = r.text("op_name");
  const double eb = r.element_bytes("nccl_dtype", kNccl), gpus = r.gpus("num_gpus");
  const double bytes = eb * r.count("message_size"), s = r.seconds("latency_us", 1e-6);
  if (op != "all_reduce") {
    ++t.left_out[fmt::format("NCCL {}: only all-reduce is fitted", op)];
    return;
  }
  collective(r, t, KernelClass::nccl_all_reduce, bytes, gpus, s);
}

void vidur_all_reduce(const Row& r, KernelTable& t) {
  const double gpus = r.gpus("num_workers"), per_node = r.count("devices_per_node"), bytes = r.count("size");
  const double s = r.seconds("median_ms", 1e-3);
  if (r.text("collective") != "all_reduce") throw r.error("collective", "an all-reduce table holds all_reduce rows");
  (void)r.count("max_devices_per_node");  // checked, not used
  if (per_node != gpus) {
    ++t.left_out["all-reduces across nodes: the network, not the GPU's link"];
    return;
  }
  collective(r, t, KernelClass::nccl_all_reduce, bytes, gpus, s, "median_ms");
}

// One step of a layer in PyTorch eager on fp16: each linear's GEMM and each elementwise kernel.
void vidur_ops(const Row& r, KernelTable& t) {
  const double heads = r.count("n_head"), kv = r.count("n_kv_head"), hidden = r.count("n_embd");
  const double ffn = r.count("n_expanded_embd"), rows = r.count("num_tokens"), tp = r.count("num_tensor_parallel_workers");
  const std::string& gated_text = r.text("use_gated_mlp");
  if (gated_text != "True" && gated_text != "False") throw r.error("use_gated_mlp", "must be True or False");
  const bool gated = gated_text == "True";
  const double hd = hidden / heads, q = heads * hd / tp, width = ffn / tp;
  auto linear = [&](std::string_view column, double in, double out) {
    t.samples.push_back({KernelClass::gemm,
                         {2 * rows * in * out, 2 * (rows * in + in * out + rows * out), rows, 0, 1, 0, 0, 0, 2 * in * out},
                         r.seconds(column, 1e-3), r.line(), column});
  };
  auto stream = [&](std::string_view column, double elements) {
    t.samples.push_back({KernelClass::elementwise, {0, 2 * elements, rows, 0, 1}, r.seconds(column, 1e-3), r.line(), column});
  };
  linear("attn_pre_proj_ms", hidden, q + 2 * kv * hd / tp);
  linear("attn_post_proj_ms", q, hidden);
  linear("mlp_up_proj_ms", hidden, (gated ? 2 : 1) * width);
  linear("mlp_down_proj_ms", width, hidden);
  stream("input_layernorm_ms", 2 * rows * hidden);            // reads x, writes the norm
  stream("post_attention_layernorm_ms", 2 * rows * hidden);
  stream("mlp_act_ms", (gated ? 3 : 2) * rows * width);       // SiLU(gate)·up: two in, one out
  stream("add_ms", 3 * rows * hidden);                        // the residual: two in, one out
  for (std::string_view c : {"emb_ms", "attn_rope_ms"}) (void)r.seconds(c, 1e-3);  // checked, not fitted
}

// --- MoE: a layer's routed experts as TensorRT-LLM's fused MoE runs them (hardware/moe_kernel.hpp).

// The weights' bytes an element of each dtype the tables hold; fp8_block and the 4-bit weights
// are known, and left out below.
const std::map<std::string, double, std::less<>> kMoeDtypes = {
    {"bfloat16", 2}, {"float16", 2}, {"fp8", 1}, {"fp8_block", 1}, {"w4a16_mxfp4", 0.5}};

// The rows' expert shapes that aiconfigurator runs without a gate (its collector's
// NON_GATED_MOE_MODELS, Nemotron-3: ReLU², up and down only): the table names no model, so they
// are known by (inter_size, topk, num_experts). Their weights at one token say so: priced gated,
// top-22 of 512 streamed at 1.2× the H100's bandwidth.
bool gated(double inter, double top_k, double experts) {
  return !((inter == 1856 && top_k == 6 && experts == 128) || (inter == 5120 && top_k == 22 && experts == 512));
}

// The GPU's load, the same for every row of a shape and routing: worked out once a table.
using LoadKey = std::tuple<long, long, long, long, std::string>;

void moe(const Row& r, KernelTable& t, std::map<LoadKey, ExpertLoad>& loads) {
  if (r.text("op_name") != "moe") throw r.error("op_name", "a MoE table holds moe rows");
  const double wb = r.element_bytes("moe_dtype", kMoeDtypes);
  const double n = r.count("num_tokens"), hidden = r.count("hidden_size"), inter = r.count("inter_size");
  const double top_k = r.count("topk"), experts = r.count("num_experts"), tp = r.count("moe_tp_size"), ep = r.count("moe_ep_size");
  const double s = r.seconds("latency_us", 1e-6);
  const std::string& routing = r.text("distribution");
  if (std::fmod(experts, ep) != 0) throw r.error("moe_ep_size", fmt::format("must divide num_experts ({})", experts));
  if (std::fmod(inter, tp) != 0) throw r.error("moe_tp_size", fmt::format("must divide inter_size ({})", inter));
  if (top_k > experts) throw r.error("topk", fmt::format("must be at most num_experts ({})", experts));
  // The routing is worked out a pick at a time and an expert at a time (io/moe_routing.cpp): past
  // these a typo, which ran for minutes and gigabytes (the tables reach 16384 tokens of 22 picks,
  // 512 experts).
  if (n * top_k > kMostPicks) {
    throw r.error("num_tokens", fmt::format("{} tokens of {} picks each: at most {} picks", r.text("num_tokens"),
                                            r.text("topk"), kMostPicks));
  }
  if (experts > kMostExperts) throw r.error("num_experts", fmt::format("must be at most {}, got {}", kMostExperts, r.text("num_experts")));
  std::optional<double> alpha;
  if (routing.starts_with("power_law_")) {
    alpha = csv_number(routing.substr(10));
    if (!alpha || !(*alpha > 1) || *alpha > 10) throw r.error("distribution", fmt::format("`{}`: power_law_ takes an exponent above 1, at most 10", routing));
  } else if (routing != "balanced") {
    throw r.error("distribution", fmt::format("`{}` is not balanced or power_law_<exponent>", routing));
  }
  const std::string& dtype = r.text("moe_dtype");
  if (dtype == "fp8_block") {
    ++t.left_out["fp8_block experts (block-scaled): no class of their own yet"];
    return;
  }
  if (dtype == "w4a16_mxfp4") {
    ++t.left_out["w4a16_mxfp4 experts (4-bit weights unpacked to 16 bits): the engine prices them generically"];
    return;
  }
  const auto key = LoadKey{static_cast<long>(n), static_cast<long>(top_k), static_cast<long>(experts), static_cast<long>(ep), routing};
  auto it = loads.find(key);
  if (it == loads.end()) {
    const auto [nn, kk, ee, pp, rr] = key;
    it = loads.emplace(key, alpha ? power_law_load(nn, kk, ee, pp, *alpha) : balanced_load(nn, kk, ee, pp)).first;
  }
  const ExpertLoad load = it->second;
  // As the engine prices them (model/operators.cpp): gate and up (or up alone) reading the
  // gathered rows and writing the intermediate, the activation reading it and writing its half,
  // down reading that and writing the rows; the reached experts' matrices once each.
  const double width = inter / tp, matrices = gated(inter, top_k, experts) ? 3 : 2;
  const double rows = load.rows, weights = load.experts * matrices * hidden * width * wb;
  const double activations = matrices == 3 ? rows * (3 * hidden + 6 * width) * 2 : rows * (2 * hidden + 4 * width) * 2;
  const KernelClass k = wb == 1 ? KernelClass::experts_fp8 : KernelClass::experts;
  KernelAsk a{2 * matrices * rows * hidden * width, weights + activations, rows};
  a.stream_bytes = weights;
  a.experts = load.experts;
  a.width = width;
  t.samples.push_back({k, a, s, r.line()});
}

// ---- Latent attention and Gated DeltaNet (KernelClass::latent_*, delta_net_*) ----

// aiconfigurator's MLA tables time TensorRT-LLM's MLA attention op alone (collector/trtllm/
// collect_mla.py, github.com/ai-dynamo/aiconfigurator): DeepSeek-V3's shapes, kv_lora_rank 512,
// qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128; `num_heads` the heads on one GPU.
// Decode (mla_generation, FlashMLA) attends with each absorbed query over the cached latent, one
// KV head of 512 + 64; prefill (mla_context) is multi-head attention of 192-wide keys and 128-wide
// values decompressed from the prompt's own latents. No projection is in either time.
constexpr double kLatentRank = 512, kLatentRope = 64, kLatentNope = 128, kLatentValue = 128;

// Priced as the engine prices a latent layer's attention (model/operators.cpp add_attention over
// model/layers.cpp latent_attention): the scores' FLOPs (2·qk + 5 a key, the softmax's 5 with
// them) and the values' (2·v), their bytes summed as the kernel that runs both.
void latent_attention(const Row& r, KernelTable& t) {
  const std::string& op = r.text("op_name");
  const double h = r.count("num_heads"), b = r.count("batch_size"), isl = r.count("isl");
  (void)r.count("tp_size");  // the heads are already one GPU's
  const double step = r.tokens("step");
  const double ab = r.element_bytes("mla_dtype", kSixteenBit), kvb = r.element_bytes("kv_cache_dtype", kAttention);
  const double s = r.seconds("latency_us", 1e-6);
  if (op == "mla_generation") {
    if (isl != 1) throw r.error("isl", fmt::format("a decode row has one query a sequence (isl 1), got {}", r.text("isl")));
    const double width = kLatentRank + kLatentRope, keys = step + 1;
    const double flops = b * h * keys * (2 * width + 5) + b * h * keys * 2 * kLatentRank;
    const double cache = b * keys * width * kvb;
    const double bytes = b * h * width * ab + cache + b * h * kLatentRank * ab;
    KernelAsk a{flops, bytes, 1, 0, 1, b * h, width, 0, cache};
    a.kv_bytes = kvb;
    if (kvb == 1) a.converted = b * keys * width;
    t.samples.push_back({KernelClass::latent_decode, a, s, r.line()});
    return;
  }
  if (op != "mla_context") throw r.error("op_name", fmt::format("`{}` is not mla_context or mla_generation", op));
  const double qk = kLatentNope + kLatentRope, v = kLatentValue, n = isl;
  const double pairs = causal_pairs(n, 0);
  const double flops = b * h * pairs * (2 * qk + 5) + b * h * pairs * 2 * v;
  // Q and K of qk, V and the output of v, a token and head, all in the activations' format.
  const double bytes = b * n * h * (2 * qk + 2 * v) * ab;
  // Over an fp8 cache the FMHA may multiply in fp8, as context_attention's rows: its roofline at
  // the fp8 peak, twice the 16-bit one on these GPUs.
  KernelAsk a{flops, bytes, n, 0, 1, b * h, qk, kvb == 1 ? flops / 2 : 0, 0};
  t.samples.push_back({KernelClass::latent_prefill, a, s, r.line()});
}

// aiconfigurator's GDN table (collector/trtllm/collect_gdn.py) times two kernels of each shape, in
// two rows of one key (the CSV has lost the kernel_source column that told them apart): TensorRT-
// LLM's causal_conv1d (fn in prefill, update in decode) over the key channels only, and FLA's gated
// delta rule (chunk_gated_delta_rule in prefill, fused_recurrent_gated_delta_rule in decode,
// github.com/fla-org/flash-linear-attention) on bf16 states. A sample is the pair: the layer's core
// as the engine's conv1d and delta_rule operators are, one group of kernels.
// The chunked prefill works in chunks of 64 tokens (FLA's BT = 64): a sequence's last chunk
// is computed whole.
constexpr double kDeltaChunk = 64;

// The rows of one table gathered by shape, in the order read.
class DeltaNetPairs {
 public:
  void add(const Row& r);
  // A sample a pair; shapes with one row or more than two counted as left out.
  void finish(KernelTable& t) const;

 private:
  struct Pair {
    std::vector<std::size_t> rows;
    double seconds = 0;
    KernelClass klass = KernelClass::delta_net_decode;
    KernelAsk ask;
  };
  std::vector<Pair> pairs_;
  std::map<std::string, std::size_t, std::less<>> at_;
};

void DeltaNetPairs::add(const Row& r) {
  std::string key;
  for (std::string_view c : {"phase", "batch_size", "seq_len", "num_tokens", "d_model", "d_conv", "num_k_heads",
                             "head_k_dim", "num_v_heads", "head_v_dim", "model_name"}) {
    key += r.text(c);
    key += '\x1f';
  }
  auto [it, added] = at_.emplace(key, pairs_.size());
  if (added) pairs_.emplace_back();
  Pair& p = pairs_[it->second];
  const bool phase_ok = r.text("phase") == "context" || r.text("phase") == "generation";
  if (!phase_ok) throw r.error("phase", fmt::format("`{}` is not context or generation", r.text("phase")));
  const double b = r.count("batch_size"), n = r.count("seq_len"), tokens = r.count("num_tokens");
  if (tokens != b * n) {
    throw r.error("num_tokens", fmt::format("must be batch_size × seq_len = {}, got {}", b * n, r.text("num_tokens")));
  }
  if (r.text("phase") == "generation" && n != 1) throw r.error("seq_len", "a generation row has one token a sequence");
  (void)r.count("d_model");  // the model's, not the kernels'
  const double taps = r.count("d_conv"), hk = r.count("num_k_heads"), dk = r.count("head_k_dim");
  const double hv = r.count("num_v_heads"), dv = r.count("head_v_dim");
  const double s = r.seconds("latency_us", 1e-6);
  p.rows.push_back(r.line());
  p.seconds += s;
  const bool decode = r.text("phase") == "generation";
  // The engine's arithmetic (model/operators.cpp OpBuilder::conv, add_recurrent) on the kernels'
  // shapes: the convolution over the hk·dk key channels it ran on, with a bias; the delta rule
  // over hv value heads of a dk × dv state (8 FLOPs an element a token, model/layers.cpp), its
  // q, k, v, gate and β in, its output out, its bf16 state (and the convolution's kept inputs)
  // read and written in decode, written once in prefill.
  const double ab = 2, sb = 2, conv = hk * dk, inner = hv * dv, rows = b * n;
  const double conv_flops = 2 * rows * conv * taps, conv_bytes = 2 * rows * conv * ab + conv * (taps + 1) * ab;
  const double held = inner * dk * sb + conv * (taps - 1) * sb, state = b * held * (decode ? 2 : 1);
  const double rule_flops = rows * inner * dk * 8;
  const double rule_bytes = state + rows * (2 * hk * dk + inner + 2 * hv + inner) * ab + 2 * hv * ab;
  const double padded = decode ? 1 : std::ceil(n / kDeltaChunk) * kDeltaChunk / n;
  p.klass = decode ? KernelClass::delta_net_decode : KernelClass::delta_net_prefill;
  p.ask = {conv_flops + rule_flops * padded, conv_bytes + rule_bytes, n, 0, 1, 0, 0, conv_flops + rule_flops, state};
  p.ask.sequences = b;
}

void DeltaNetPairs::finish(KernelTable& t) const {
  for (const Pair& p : pairs_) {
    if (p.rows.size() == 2) {
      t.samples.push_back({p.klass, p.ask, p.seconds, p.rows.front()});
    } else if (p.rows.size() == 1) {
      ++t.left_out["GDN shapes with one row (the delta rule's missing: it failed where its convolution ran)"];
    } else {
      t.left_out["GDN shapes with more than two rows: which is which is not known"] += p.rows.size();
    }
  }
}

// The kernel a row measures: every cell but its times (`latency_us`, Vidur's `*_ms`), a number as
// the number it is (4096 and 4096.0 alike), each cell's length before it.
std::string shape_key(const CsvRecord& r, const std::vector<bool>& time_column) {
  std::string key;
  for (std::size_t i = 0; i < r.cells.size(); ++i) {
    if (time_column[i]) continue;
    const std::optional<double> v = csv_number(r.cells[i]);
    const std::string cell = v ? fmt::format("{}", *v) : r.cells[i];
    key += fmt::format("{}:{};", cell.size(), cell);
  }
  return key;
}

}  // namespace

std::string gpu_of_table(const std::string& path) {
  const std::string file = std::filesystem::path(path).filename().string();
  const std::size_t cut = file.find('_');
  return cut == std::string::npos ? "" : file.substr(0, cut);
}

KernelTable read_kernel_table(const std::string& path) {
  const std::string text = read_text_file(path, "kernel table", kMaxTableBytes);
  const std::vector<CsvRecord> records = csv_records(text, path);
  if (records.empty()) throw InputError(fmt::format("{}:1: a kernel table needs a header and rows; the file is empty", path));
  const CsvRecord& header = records.front();
  std::map<std::string, std::size_t, std::less<>> at;
  for (std::size_t i = 0; i < header.cells.size(); ++i) {
    if (!at.emplace(header.cells[i], i).second) {
      throw input_error(fmt::format("{}:{}: column `{}`: given twice", path, header.line, header.cells[i]));
    }
  }
  // The kind whose columns the header has most of; a header missing some is refused naming them.
  const Kind* best = nullptr;
  std::vector<std::string_view> missing;
  for (const Kind& k : kinds()) {
    std::vector<std::string_view> lacking;
    for (std::string_view c : k.columns) {
      if (!at.contains(c)) lacking.push_back(c);
    }
    // Tied, the kind with more columns: a DSA table has every column of an MLA table and more.
    if (!best || lacking.size() < missing.size() ||
        (lacking.size() == missing.size() && k.columns.size() > best->columns.size())) {
      best = &k;
      missing = lacking;
    }
  }
  if (missing.size() * 2 > best->columns.size()) {
    throw InputError(fmt::format("{}:{}: not a kernel table: its header matches none of gemm, generation_attention, "
                                 "context_attention, custom_allreduce, nccl, moe, mla, gdn (aiconfigurator) or ops, all_reduce (Vidur)",
                                 path, header.line));
  }
  if (!missing.empty()) {
    throw InputError(fmt::format("{}:{}: column `{}` is missing (a {} table has {})", path, header.line, missing.front(),
                                 best->name, fmt::join(best->columns, ", ")));
  }
  std::string_view kind = best->name;
  // Vidur's send/recv has the all-reduce's columns: its `collective` cell tells them apart.
  if (kind == "vidur_all_reduce" && records.size() > 1 && at.contains("collective") &&
      at.at("collective") < records[1].cells.size() && records[1].cells[at.at("collective")] == "send_recv") {
    kind = "vidur_send_recv";
  }
  KernelTable t;
  t.path = path;
  t.kind = std::string(kind);
  t.content_hash = std::hash<std::string_view>{}(text);
  t.content_bytes = text.size();
  // A header alone is refused whatever its kind: a table nobody fits yet was "0 rows left out".
  if (records.size() < 2) throw InputError(fmt::format("{}:{}: a kernel table needs rows under its header", path, header.line));
  DeltaNetPairs delta_net;
  const auto fitted = std::find_if(kinds().begin(), kinds().end(), [&](const Kind& k) { return k.name == kind; });
  // Row i, as many cells as the header.
  const auto row = [&](std::size_t i) {
    if (records[i].cells.size() != header.cells.size()) {
      throw InputError(fmt::format("{}:{}: {} cells, the header has {}", path, records[i].line, records[i].cells.size(),
                                   header.cells.size()));
    }
    return Row(records[i], at, path);
  };
  if (!fitted->fitted) {
    // Not fitted, still read: a NaN or a cut row in a table nobody fits is still a broken table,
    // and a send/recv table's rows are send/recv (its first row named the kind).
    for (std::size_t i = 1; i < records.size(); ++i) {
      const Row r = row(i);
      if (at.contains("median_ms")) (void)r.seconds("median_ms", 1e-3);
      else (void)r.seconds("latency_us", 1e-6);
      if (kind == "vidur_send_recv" && r.text("collective") != "send_recv") {
        throw r.error("collective", "a send/recv table (its first row's) holds send_recv rows");
      }
    }
    t.left_out[fitted->why.empty() ? fmt::format("a {} table: no class of the fit reads it yet", kind)
                                   : fmt::format("a {} table: {}", kind, fitted->why)] = records.size() - 1;
    return t;
  }
  std::map<LoadKey, ExpertLoad> loads;
  // A kernel measured twice in one table. aiconfigurator's tables hold each kernel once (every table
  // of ../shared/gpu-kernels/; their GDN tables two rows a shape, paired below): a repeat is a
  // copy or a conflict (300 and 3000 us), refused naming the first. Vidur's profiles time a few
  // shapes twice (each ops table 8 rows, each DGX all-reduce table 3 of the rows fitted, one of
  // them byte for byte): both runs fitted, and said.
  const bool vidur = kind == "vidur_ops" || kind == "vidur_all_reduce";
  std::vector<bool> time_column;
  for (const std::string& c : header.cells) time_column.push_back(c == "latency_us" || c.ends_with("_ms"));
  std::map<std::string, std::size_t> seen;  // a row's kernel → the record that first measured it
  for (std::size_t i = 1; i < records.size(); ++i) {
    const Row r = row(i);
    const std::size_t before = t.samples.size();
    if (kind == "gemm") gemm(r, t);
    else if (kind == "generation_attention") generation_attention(r, t);
    else if (kind == "context_attention") context_attention(r, t);
    else if (kind == "custom_allreduce") custom_allreduce(r, t);
    else if (kind == "nccl") nccl(r, t);
    else if (kind == "vidur_ops") vidur_ops(r, t);
    else if (kind == "moe") moe(r, t, loads);
    else if (kind == "mla") latent_attention(r, t);
    else if (kind == "gdn") delta_net.add(r);
    else vidur_all_reduce(r, t);
    if (kind == "gdn" || (vidur && t.samples.size() == before)) continue;  // a Vidur row left out is not fitted twice
    const auto [first, added] = seen.emplace(shape_key(records[i], time_column), i);
    if (added) continue;
    const CsvRecord& earlier = records[first->second];
    if (vidur) {
      t.repeated.push_back({records[i].line, earlier.line});
      continue;
    }
    const std::size_t time = at.at("latency_us");
    throw InputError(fmt::format("{}:{}: the kernel of line {} again (every column but latency_us alike: {} us there, {} "
                                 "here): a table holds each kernel once, and a repeat would count twice in the fit",
                                 path, records[i].line, earlier.line, earlier.cells[time], records[i].cells[time]));
  }
  if (kind == "gdn") delta_net.finish(t);
  if (kind == "vidur_all_reduce" && std::filesystem::path(path).filename().string().find("pairwise") != std::string::npos) {
    // Vidur's pairwise system joins GPUs two by two with NVLink bridges: not the switched board
    // of the GPU's description, whose link bandwidth the bus share is of.
    t.left_out["all-reduces on pairwise NVLink, not an NVSwitch board"] = t.samples.size();
    t.samples.clear();
    t.repeated.clear();
  }
  return t;
}

}  // namespace roofline::io
