// The GPU YAML, field by field: what `--gpu file.yaml` reads, `calibrate` writes and docs/inputs.md
// lists. Dimensioned values carry units; a calibration block replaces the datasheet ceilings.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>

#include "io/schema.hpp"

namespace roofline::io {

namespace {

struct InGpu {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return g; }
};
struct InInterconnect {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return *g.interconnect; }
};
struct InNetwork {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return *g.network; }
};
struct InEfficiency {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return g.efficiency; }
};
struct InCalibration {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return *g.calibration; }
};
struct InExpected {
  using Spec = GpuSpec;
  static auto& of(auto& g) { return *g.expected; }
};

// `expected.kernels` and its classes (hardware/kernel_classes.hpp): created with the section.
template <auto Class>
struct InKernels {
  using Spec = GpuSpec;
  static auto& of(auto& g) {
    if constexpr (Class == nullptr) return *g.expected->kernels;
    else return (*g.expected->kernels).*Class;
  }
};
using InKernelSet = InKernels<nullptr>;
const KernelCoefficients kKernelDefaults{};
constexpr Range kKernelOverlap{1, 20};
constexpr Range kClassList{1, 14};  // each kernel class at most once
// The kernel classes by name, in KernelClass's order, with what each is.
constexpr std::array kKernelClassWords = {
    Word{"gemm", "a 16-bit GEMM"},
    Word{"gemm_fp8", "an fp8 GEMM, per-tensor scales"},
    Word{"gemm_fp8_block", "an fp8 GEMM scaled in blocks"},
    Word{"decode_attention", "one query a sequence against its cache"},
    Word{"prefill_attention", "causal attention over a prompt"},
    Word{"elementwise", "norms, activations, residual adds"},
    Word{"all_reduce", "the engine's all-reduce"},
    Word{"nccl_all_reduce", "NCCL's all-reduce"},
    Word{"experts", "a MoE layer's grouped GEMMs, 16-bit"},
    Word{"experts_fp8", "the same in fp8"},
    Word{"latent_decode", "latent attention's decode"},
    Word{"latent_prefill", "latent attention's prefill"},
    Word{"delta_net_decode", "a Gated DeltaNet layer, a token a sequence"},
    Word{"delta_net_prefill", "the same over a prompt"}};
static_assert(kKernelClassWords.size() == kKernelClasses);
// Each word the class's own name (hardware/kernel_classes.hpp), so a file `fit --kernels` writes
// reads back as the same classes.
static_assert([] {
  for (std::size_t i = 0; i < kKernelClasses; ++i) {
    if (kKernelClassWords[i].word != name(static_cast<KernelClass>(i))) return false;
  }
  return true;
}());
constexpr Range kHalfLength{1, 1e6};
constexpr Range kTwoShotBus{0.01, 2};  // above 1: the switch reduces (NVLS), as a ring's bytes cannot
constexpr Range kTinyShare{1e-5, 1};  // a share of the peak a per-head or per-score cost reaches
constexpr Range kExpertTile{1, 512};   // rows: CUTLASS tiles are 64 to 256 rows
constexpr Range kExpertWidth{1, 1e5};  // columns: 1 is no narrowness; 1e5 is wider than any expert

// A field left out keeps the published fit's value (hardware/expected_model.hpp).
const ExpectedModel kFit{};
constexpr Range kSpread{0, 5};  // log-normal spread: 0 … e^(±6.4) at 10–90%
constexpr Range kOverlap{1, 100};   // 1: the sum; 100: the larger time within 0.7%
constexpr Range kSkinnyRows{0, 1e5};  // beyond any batch or prompt a GEMM is run at
constexpr Range kLinks{1, 64};
constexpr Range kDomain{1, 1e5};  // GPUs of one fabric: 8 in a node, 72 in an NVL72 rack

// In the order of `Topology`.
constexpr std::array kTopologies = {
    Word{"switch", "each GPU has `bandwidth` into a switch (NVLink Switch): any group gets all of it"},
    Word{"mesh", "each GPU has `links` links of `bandwidth`, one to each peer (Infinity Fabric): k GPUs use k - 1"},
    Word{"pcie", "each GPU has `bandwidth` to a PCIe switch"}};

using F = Field<GpuSpec>;

// The field `key` of a section's fields (the schema's own: a class's keys are said once, there).
const F& field_of(std::span<const F> fields, std::string_view key) {
  const auto f = std::find_if(fields.begin(), fields.end(), [&](const F& x) { return x.key == key; });
  if (f == fields.end()) throw std::logic_error(fmt::format("gpu schema: no field `{}`", key));
  return *f;
}

// A GPU's own fit (`own_tables: true`) says every class: one its tables did not measure is listed
// under `borrowed:`, and may then be left out (it takes the shipped defaults, every GPU's fit). A
// class left out and not listed was priced by the shipped defaults unsaid, the warning naming only
// `borrowed:`'s classes (decode 8.539 → 8.639 ms, Llama-3.1-8B at batch 32 on an H100 file
// without its `gemm:`). `fit --kernels --for` writes every class, and the GPU writer leaves a class
// out only where each of its coefficients is the shipped one (a borrowed class). A key left out of
// a class given keeps the shipped value: the writer leaves out a coefficient equal to it (a share
// at its bound of 1), so an absent key cannot be told from one fitted to it.
void check_own_fit(const MapReader& kernels, const KernelCoefficients& k) {
  const std::span<const F> classes = field_of(field_of(gpu_schema().fields, "expected").fields, "kernels").fields;
  for (std::size_t c = 0; c < kKernelClasses; ++c) {
    const auto klass = static_cast<KernelClass>(c);
    const F& section = field_of(classes, name(klass));
    if (kernels.has(section.key) || std::find(k.borrowed.begin(), k.borrowed.end(), klass) != k.borrowed.end()) continue;
    kernels.fail(section.key, fmt::format("is missing beside `own_tables: true` ({}): a GPU's own fit gives every class, "
                                          "and one its tables did not measure is listed under `borrowed:`",
                                          section.doc));
  }
}

void check(const MapReader& r, const GpuSpec& g) {
  if (std::none_of(g.peak.begin(), g.peak.end(), [](const auto& p) { return p.has_value(); }) && r.has("compute")) {
    const MapReader compute = r.child("compute", {});
    if (compute.has("peak")) compute.fail("peak", "needs at least one dtype, like fp16: \"312 TFLOPS\"");
  }
  if (g.network && !g.interconnect) r.fail("network", "needs `interconnect:` too: groups within a domain use it");
  // A host holds whole domains (PCIe boxes of NVLink-bridged pairs) or a domain whole hosts (an
  // NVL72 rack's trays).
  if (const auto& link = g.interconnect;
      link && link->host && link->domain % *link->host != 0 && *link->host % link->domain != 0) {
    r.child("interconnect", {}).fail("host", fmt::format("{} GPUs a host neither divide the {}-GPU domain nor are "
                                                         "whole domains",
                                                         *link->host, link->domain));
  }
  // Kernel classes are shares of the datasheet's ceilings, as `fit --kernels` measures them; a
  // calibration's ceilings are already what kernels reach.
  if (g.calibration && r.has("expected") && r.child("expected", {}).has("kernels")) {
    r.child("expected", {}).fail("kernels", "shares of the datasheet's ceilings: not with `calibration:` (measured ones)");
  }
  // `borrowed` qualifies a GPU's own fit; beside a borrowed block (own_tables false) it would be
  // read by nothing, and a class listed twice said twice.
  if (g.expected && g.expected->kernels && r.has("expected") && r.child("expected", {}).has("kernels")) {
    const MapReader kernels = r.child("expected", {}).child("kernels", {});
    const std::vector<KernelClass>& b = g.expected->kernels->borrowed;
    if (!b.empty() && !g.expected->kernels->own_tables) {
      kernels.fail("borrowed", "lists what a GPU's own fit lacks: only with `own_tables: true`");
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (std::find(b.begin(), b.begin() + static_cast<long>(i), b[i]) != b.begin() + static_cast<long>(i)) {
        kernels.fail("borrowed", fmt::format("`{}` is listed twice", name(b[i])));
      }
    }
    if (g.expected->kernels->own_tables) check_own_fit(kernels, *g.expected->kernels);
  }
  // The ceilings the engine prices with, datasheet × efficiency, stay in the physical range the
  // datasheet figures are held to: a share of a thousandth of 1 MB/s made hours of a step.
  if (r.has("efficiency")) {
    const MapReader eff = r.child("efficiency", {});
    const Range bandwidth = physical_range(Dimension::bandwidth), rate = physical_range(Dimension::flops_rate);
    if (eff.has("memory") && g.memory_bandwidth.value() * g.efficiency.memory < bandwidth.min) {
      eff.fail("memory", fmt::format("leaves {:g} B/s of the datasheet's bandwidth, outside {}",
                                     g.memory_bandwidth.value() * g.efficiency.memory,
                                     range_text(bandwidth, Dimension::bandwidth)));
    }
    for (const auto& p : eff.has("compute") ? g.peak : PeakTable{}) {
      if (p && p->value() * g.efficiency.compute < rate.min) {
        eff.fail("compute", fmt::format("leaves {:g} FLOP/s of a datasheet peak, outside {}", p->value() * g.efficiency.compute,
                                        range_text(rate, Dimension::flops_rate)));
      }
    }
  }
  if (g.interconnect && g.interconnect->topology != Topology::mesh && r.has("interconnect")) {
    const MapReader link = r.child("interconnect", {});
    if (link.has("links")) link.fail("links", "is for `topology: mesh` only: a switch gives each GPU one `bandwidth`");
  }
}

}  // namespace

namespace {

// Decode attention's fields (hardware/kernel_classes.hpp DecodeAttentionCoefficients).
std::array<F, 18> decode_fields(const DecodeAttentionCoefficients& d) {
  using D = InKernels<&KernelCoefficients::decode_attention>;
  using C = DecodeAttentionCoefficients;
  return {F{.key = "memory", .kind = Kind::fraction, .need = Need::optional,
            .doc = "share of the bandwidth a KV stream reaches (16-bit; fp8 in the one-head kernel), the GPU full of blocks",
            .access = member<D, &C::memory>(), .fallback = d.memory},
          F{.key = "memory_fp8", .kind = Kind::fraction, .need = Need::optional,
            .doc = "share of the bandwidth an fp8 cache reaches in the grouped kernel",
            .access = member<D, &C::memory_fp8>(), .fallback = d.memory_fp8},
          F{.key = "floor", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time of a decode attention kernel at the shortest contexts",
            .access = member<D, &C::floor>(), .fallback = d.floor, .dimension = Dimension::time},
          F{.key = "floor_fp8", .kind = Kind::quantity, .need = Need::optional,
            .doc = "the grouped kernel's over an fp8 cache", .access = member<D, &C::floor_fp8>(), .fallback = d.floor_fp8,
            .dimension = Dimension::time},
          F{.key = "combine", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time long contexts add to the floor: the blocks' partial results combined",
            .access = member<D, &C::combine>(), .fallback = d.combine, .dimension = Dimension::time},
          F{.key = "combine_keys", .kind = Kind::number, .need = Need::optional,
            .doc = "keys a sequence at which half of `combine` is paid", .access = member<D, &C::combine_keys>(),
            .range = kHalfLength, .fallback = d.combine_keys},
          F{.key = "compute", .kind = Kind::number, .need = Need::optional,
            .doc = "share of the 16-bit peak the grouped kernel's arithmetic reaches", .access = member<D, &C::compute>(),
            .range = kTinyShare, .fallback = d.compute},
          F{.key = "compute_fallback", .kind = Kind::number, .need = Need::optional,
            .doc = "the same for 48 or more query heads a KV head (a one-head fallback kernel)",
            .access = member<D, &C::compute_fallback>(), .range = kTinyShare, .fallback = d.compute_fallback},
          F{.key = "convert", .kind = Kind::number, .need = Need::optional,
            .doc = "share of the 16-bit peak, in elements a second, the one-head kernel converts an fp8 cache at",
            .access = member<D, &C::convert>(), .range = kTinyShare, .fallback = d.convert},
          F{.key = "per_item", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time a block (a sequence's keys on one KV head, or one query head): load, softmax, write",
            .access = member<D, &C::per_item>(), .fallback = d.per_item, .dimension = Dimension::time},
          F{.key = "per_item_group", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time a block of the grouped kernel over a 16-bit cache", .access = member<D, &C::per_item_group>(),
            .fallback = d.per_item_group, .dimension = Dimension::time},
          F{.key = "per_width", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time a block of the 16-bit grouped kernel adds for each 128 elements of a head's width",
            .access = member<D, &C::per_width>(), .fallback = d.per_width, .dimension = Dimension::time},
          F{.key = "query_kib", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time a grouped block adds for a KiB of its 16-bit queries (group × head_dim): loaded, output written",
            .access = member<D, &C::query_kib>(), .fallback = d.query_kib, .dimension = Dimension::time},
          F{.key = "overlap", .kind = Kind::number, .need = Need::optional,
            .doc = "p in (s^p + w^p)^(1/p) between the stream and the blocks' fixed time: 1 adds them",
            .access = member<D, &C::overlap>(), .range = kKernelOverlap, .fallback = d.overlap},
          F{.key = "floor_overlap", .kind = Kind::number, .need = Need::optional,
            .doc = "p between the floor (one block's latency) and the rest: 1 adds them",
            .access = member<D, &C::floor_overlap>(), .range = kKernelOverlap, .fallback = d.floor_overlap},
          F{.key = "block_keys", .kind = Kind::number, .need = Need::optional,
            .doc = "keys a block of a split sequence takes", .access = member<D, &C::block_keys>(), .range = kHalfLength,
            .fallback = d.block_keys},
          F{.key = "blocks_target", .kind = Kind::number, .need = Need::optional,
            .doc = "blocks the kernel splits sequences into to fill the GPU", .access = member<D, &C::blocks_target>(),
            .range = kHalfLength, .fallback = d.blocks_target},
          F{.key = "block_kib", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time one block alone takes to stream a KiB of keys and values (its bytes in flight)",
            .access = member<D, &C::block_kib>(), .fallback = d.block_kib, .dimension = Dimension::time}};
}
// The latent decode and the prefill attention formulas' fields (and a recurrent core's) under a
// class's key: prefill attention's own, and latent attention's. `stream` and `kernel` word the docs.
template <auto Class>
std::array<F, 5> latent_decode_fields(const LatentDecodeCoefficients& d, std::string_view stream, std::string_view kernel) {
  using D = InKernels<Class>;
  return {F{.key = "memory", .kind = Kind::fraction, .need = Need::optional, .doc = stream,
            .access = member<D, &LatentDecodeCoefficients::memory>(), .fallback = d.memory},
          F{.key = "floor", .kind = Kind::quantity, .need = Need::optional, .doc = kernel,
            .access = member<D, &LatentDecodeCoefficients::floor>(), .fallback = d.floor, .dimension = Dimension::time},
          F{.key = "compute", .kind = Kind::number, .need = Need::optional,
            .doc = "share of the 16-bit peak its per-head arithmetic reaches",
            .access = member<D, &LatentDecodeCoefficients::compute>(), .range = kTinyShare, .fallback = d.compute},
          F{.key = "per_head", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time a (sequence, query head): its query loaded, its softmax finished, its output written",
            .access = member<D, &LatentDecodeCoefficients::per_head>(), .fallback = d.per_head,
            .dimension = Dimension::time},
          F{.key = "convert", .kind = Kind::number, .need = Need::optional,
            .doc = "share of the 16-bit peak, in elements a second, at which an fp8 cache is converted to 16 bits",
            .access = member<D, &LatentDecodeCoefficients::convert>(), .range = kTinyShare, .fallback = d.convert}};
}
template <auto Class>
std::array<F, 6> prefill_fields(const PrefillAttentionCoefficients& p, std::string_view launch) {
  using P = InKernels<Class>;
  return {F{.key = "compute", .kind = Kind::fraction, .need = Need::optional, .doc = "share of the 16-bit peak its products reach",
            .access = member<P, &PrefillAttentionCoefficients::compute>(), .fallback = p.compute},
          F{.key = "half_length", .kind = Kind::number, .need = Need::optional,
            .doc = "keys' worth of per-token work a query does beside its products",
            .access = member<P, &PrefillAttentionCoefficients::half_length>(), .range = kHalfLength, .fallback = p.half_length},
          F{.key = "softmax", .kind = Kind::number, .need = Need::optional,
            .doc = "scores a second as a share of the peak (the exponentials)",
            .access = member<P, &PrefillAttentionCoefficients::softmax>(), .range = kTinyShare, .fallback = p.softmax},
          F{.key = "chain", .kind = Kind::number, .need = Need::optional,
            .doc = "share of the peak one query tile's chain of key tiles gets",
            .access = member<P, &PrefillAttentionCoefficients::chain>(), .range = kTinyShare, .fallback = p.chain},
          F{.key = "launch", .kind = Kind::quantity, .need = Need::optional, .doc = launch,
            .access = member<P, &PrefillAttentionCoefficients::launch>(), .fallback = p.launch, .dimension = Dimension::time},
          F{.key = "per_tile", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time a query tile (128 queries of one head): its Q loaded, its softmax finished, its O written",
            .access = member<P, &PrefillAttentionCoefficients::per_tile>(), .fallback = p.per_tile,
            .dimension = Dimension::time}};
}
// Prefill attention's own: the latent one has no window.
std::array<F, 7> prefill_window_fields(const PrefillAttentionCoefficients& p, std::string_view launch) {
  const auto f = prefill_fields<&KernelCoefficients::prefill_attention>(p, launch);
  using P = InKernels<&KernelCoefficients::prefill_attention>;
  return {f[0], f[1], f[2], f[3], f[4], f[5],
          F{.key = "window_keys", .kind = Kind::number, .need = Need::optional,
            .doc = "keys past a window a query still computes (the kernel skips whole blocks of keys)",
            .access = member<P, &PrefillAttentionCoefficients::window_keys>(), .range = kHalfLength,
            .fallback = p.window_keys}};
}
template <auto Class>
std::array<F, 4> recurrent_fields(const RecurrentCoefficients& r) {
  using R = InKernels<Class>;
  return {F{.key = "compute", .kind = Kind::number, .need = Need::optional,
            .doc = "share of the 16-bit peak its FLOPs reach, a chunked prefill's padded to whole chunks",
            .access = member<R, &RecurrentCoefficients::compute>(), .range = kTinyShare, .fallback = r.compute},
          F{.key = "memory", .kind = Kind::fraction, .need = Need::optional,
            .doc = "share of the bandwidth its state and activations stream at",
            .access = member<R, &RecurrentCoefficients::memory>(), .fallback = r.memory},
          F{.key = "launch", .kind = Kind::quantity, .need = Need::optional,
            .doc = "fixed time a layer: its convolution's and its delta rule's kernels",
            .access = member<R, &RecurrentCoefficients::launch>(), .fallback = r.launch, .dimension = Dimension::time},
          F{.key = "per_sequence", .kind = Kind::quantity, .need = Need::optional,
            .doc = "time a sequence of the batch adds beyond its bytes",
            .access = member<R, &RecurrentCoefficients::per_sequence>(), .fallback = r.per_sequence,
            .dimension = Dimension::time}};
}

}  // namespace

const Schema<GpuSpec>& gpu_schema() {
  static const std::array memory = {
      F{.key = "capacity", .kind = Kind::quantity, .need = Need::required, .doc = "memory size",
        .access = member<InGpu, &GpuSpec::memory_capacity>(), .dimension = Dimension::bytes},
      F{.key = "bandwidth", .kind = Kind::quantity, .need = Need::required, .doc = "datasheet memory bandwidth",
        .access = member<InGpu, &GpuSpec::memory_bandwidth>(), .dimension = Dimension::bandwidth},
  };
  static const std::array compute = {
      F{"peak", Kind::peaks, Need::required, "datasheet dense peak of each dtype it has; at least one",
        member<InGpu, &GpuSpec::peak>()},
  };
  static const std::array interconnect = {
      F{.key = "bandwidth", .kind = Kind::quantity, .need = Need::required, .doc = "per direction, per GPU",
        .access = member<InInterconnect, &Interconnect::bandwidth>(), .dimension = Dimension::bandwidth},
      F{.key = "latency", .kind = Kind::quantity, .need = Need::required, .doc = "of one transfer",
        .access = member<InInterconnect, &Interconnect::latency>(), .dimension = Dimension::time},
      F{.key = "topology", .kind = Kind::choice, .need = Need::optional,
        .doc = "how the GPUs of a domain are joined; absent: switch", .access = member<InInterconnect, &Interconnect::topology>(),
        .fallback = Choice{0}, .words = kTopologies},
      F{.key = "links", .kind = Kind::small_count, .need = Need::optional,
        .doc = "mesh: links per GPU, one to each peer (`bandwidth` is one link's)",
        .access = member<InInterconnect, &Interconnect::links>(), .range = kLinks, .fallback = 1L},
      F{.key = "domain", .kind = Kind::small_count, .need = Need::optional,
        .doc = "GPUs the fabric joins (8 in a node, 72 in an NVL72 rack); larger groups need `network`; absent: 8",
        .access = member<InInterconnect, &Interconnect::domain>(), .range = kDomain, .fallback = 8L},
      F{.key = "host", .kind = Kind::small_count, .need = Need::optional,
        .doc = "GPUs one host holds (a server, one CUDA_VISIBLE_DEVICES), a divisor or a multiple of the domain: "
               "4 in an NVL72 rack's trays; launch scripts place a replica's GPUs by it; absent: the domain",
        .access = member<InInterconnect, &Interconnect::host>(), .range = kDomain},
  };
  static const std::array network = {
      F{.key = "bandwidth", .kind = Kind::quantity, .need = Need::required,
        .doc = "per direction, per GPU (a 400 Gb/s NIC each: 50 GB/s)",
        .access = member<InNetwork, &Network::bandwidth>(), .dimension = Dimension::bandwidth},
      F{.key = "latency", .kind = Kind::quantity, .need = Need::required, .doc = "of one transfer between domains",
        .access = member<InNetwork, &Network::latency>(), .dimension = Dimension::time},
  };
  static const std::array efficiency = {
      F{.key = "memory", .kind = Kind::fraction, .need = Need::optional,
        .doc = "fraction of the datasheet bandwidth reachable", .access = member<InEfficiency, &Efficiency::memory>(),
        .fallback = 1.0},
      F{.key = "compute", .kind = Kind::fraction, .need = Need::optional,
        .doc = "fraction of the datasheet peak reachable", .access = member<InEfficiency, &Efficiency::compute>(),
        .fallback = 1.0},
  };
  static const std::array calibration = {
      F{.key = "device", .kind = Kind::text, .need = Need::optional, .doc = "the device measured",
        .access = member<InCalibration, &Calibration::device>(), .fallback = std::string()},
      F{.key = "toolchain", .kind = Kind::text, .need = Need::optional, .doc = "driver and compiler versions",
        .access = member<InCalibration, &Calibration::toolchain>(), .fallback = std::string()},
      F{.key = "date", .kind = Kind::text, .need = Need::optional, .doc = "when it was measured",
        .access = member<InCalibration, &Calibration::date>(), .fallback = std::string()},
      F{.key = "repetitions", .kind = Kind::count, .need = Need::optional, .doc = "runs of each kernel",
        .access = member<InCalibration, &Calibration::repetitions>(), .range = Range{0, 1e9}, .fallback = 0L},
      F{.key = "spread", .kind = Kind::number, .need = Need::optional, .doc = "(max - min) / median of the runs",
        .access = member<InCalibration, &Calibration::spread>(), .range = kSpreadRange, .fallback = 0.0},
      F{.key = "bandwidth", .kind = Kind::quantity, .need = Need::optional,
        .doc = "measured memory bandwidth: replaces datasheet × efficiency",
        .access = member<InCalibration, &Calibration::bandwidth>(), .dimension = Dimension::bandwidth},
      F{.key = "peak", .kind = Kind::peaks, .need = Need::optional,
        .doc = "measured compute ceilings: replace datasheet × efficiency",
        .access = member<InCalibration, &Calibration::peak>(), .fallback = PeakTable{}},
      F{.key = "kernels", .kind = Kind::kernels, .need = Need::optional, .doc = "every kernel's measurements",
        .access = member<InCalibration, &Calibration::kernels>(), .fallback = std::vector<KernelRecord>{}},
  };
  using Gemm = InKernels<&KernelCoefficients::gemm>;
  using Fp8 = InKernels<&KernelCoefficients::gemm_fp8>;
  using Fp8Block = InKernels<&KernelCoefficients::gemm_fp8_block>;
  using Elementwise = InKernels<&KernelCoefficients::elementwise>;
  using AllReduce = InKernels<&KernelCoefficients::all_reduce>;
  using Nccl = InKernels<&KernelCoefficients::nccl_all_reduce>;
  using Experts = InKernels<&KernelCoefficients::experts>;
  using ExpertsFp8 = InKernels<&KernelCoefficients::experts_fp8>;
  const KernelCoefficients& d = kKernelDefaults;
  static const std::array gemm = {
      F{.key = "compute", .kind = Kind::fraction, .need = Need::optional, .doc = "share of the 16-bit peak a large GEMM reaches",
        .access = member<Gemm, &GemmCoefficients::compute>(), .fallback = d.gemm.compute},
      F{.key = "memory", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the bandwidth a skinny GEMM's weights stream at", .access = member<Gemm, &GemmCoefficients::memory>(),
        .fallback = d.gemm.memory},
      F{.key = "overlap", .kind = Kind::number, .need = Need::optional,
        .doc = "p in (c^p + m^p)^(1/p): 1 adds compute and memory time, large takes the larger",
        .access = member<Gemm, &GemmCoefficients::overlap>(), .range = kKernelOverlap, .fallback = d.gemm.overlap},
      F{.key = "launch", .kind = Kind::quantity, .need = Need::optional, .doc = "fixed time a GEMM: ramp-up, tail, partial waves",
        .access = member<Gemm, &GemmCoefficients::launch>(), .fallback = d.gemm.launch, .dimension = Dimension::time},
  };
  static const std::array fp8 = {
      F{.key = "compute", .kind = Kind::fraction, .need = Need::optional, .doc = "share of the fp8 peak an fp8 GEMM reaches",
        .access = member<Fp8, &Fp8Coefficients::compute>(), .fallback = d.gemm_fp8.compute},
      F{.key = "scale", .kind = Kind::quantity, .need = Need::optional,
        .doc = "fixed time of the kernels that scale the activations to fp8", .access = member<Fp8, &Fp8Coefficients::scale>(),
        .fallback = d.gemm_fp8.scale, .dimension = Dimension::time},
  };
  static const std::array fp8_block = {
      F{.key = "compute", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the fp8 peak on whole tiles (M padded to 64 rows, N to 128 columns)",
        .access = member<Fp8Block, &Fp8BlockCoefficients::compute>(), .fallback = d.gemm_fp8_block.compute},
      F{.key = "chain", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the fp8 peak one output tile's walk along K gets (about one SM's)",
        .access = member<Fp8Block, &Fp8BlockCoefficients::chain>(), .fallback = d.gemm_fp8_block.chain},
      F{.key = "quantize", .kind = Kind::quantity, .need = Need::optional,
        .doc = "fixed time of the activations' 1 x 128 quantization kernel",
        .access = member<Fp8Block, &Fp8BlockCoefficients::quantize>(), .fallback = d.gemm_fp8_block.quantize,
        .dimension = Dimension::time},
      F{.key = "quantize_memory", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the bandwidth the quantization's 3 bytes an activation stream at",
        .access = member<Fp8Block, &Fp8BlockCoefficients::quantize_memory>(), .fallback = d.gemm_fp8_block.quantize_memory},
  };
  static const auto decode = decode_fields(d.decode_attention);
  static const auto prefill = prefill_window_fields(d.prefill_attention, "fixed time a prefill attention kernel");
  static const std::array elementwise = {
      F{.key = "memory", .kind = Kind::fraction, .need = Need::optional, .doc = "share of the bandwidth a norm or activation reaches",
        .access = member<Elementwise, &ElementwiseCoefficients::memory>(), .fallback = d.elementwise.memory},
      F{.key = "launch", .kind = Kind::quantity, .need = Need::optional, .doc = "fixed time a norm or activation kernel",
        .access = member<Elementwise, &ElementwiseCoefficients::launch>(), .fallback = d.elementwise.launch,
        .dimension = Dimension::time},
  };
  static const std::array all_reduce = {
      F{.key = "latency", .kind = Kind::quantity, .need = Need::optional, .doc = "time of a call at the smallest message",
        .access = member<AllReduce, &AllReduceCoefficients::latency>(), .fallback = d.all_reduce.latency,
        .dimension = Dimension::time},
      F{.key = "bus", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of a GPU's link the one-shot kernel's reads of every peer's message reach",
        .access = member<AllReduce, &AllReduceCoefficients::bus>(), .fallback = d.all_reduce.bus},
      F{.key = "bus_two_shot", .kind = Kind::number, .need = Need::optional,
        .doc = "share of a GPU's link the two-shot kernel's 2(k-1)/k of the message reaches (above 1: the switch reduces)",
        .access = member<AllReduce, &AllReduceCoefficients::bus_two_shot>(), .range = kTwoShotBus,
        .fallback = d.all_reduce.bus_two_shot},
      F{.key = "two_shot", .kind = Kind::quantity, .need = Need::optional, .doc = "time the two-shot kernel adds to a call",
        .access = member<AllReduce, &AllReduceCoefficients::two_shot>(), .fallback = d.all_reduce.two_shot,
        .dimension = Dimension::time},
  };
  static const std::array nccl = {
      F{.key = "latency", .kind = Kind::quantity, .need = Need::optional, .doc = "time of a call at the smallest message",
        .access = member<Nccl, &CollectiveCoefficients::latency>(), .fallback = d.nccl_all_reduce.latency,
        .dimension = Dimension::time},
      F{.key = "bus", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of a GPU's link a large message's bus bandwidth reaches",
        .access = member<Nccl, &CollectiveCoefficients::bus>(), .fallback = d.nccl_all_reduce.bus},
  };
  static const std::array experts = {
      F{.key = "memory", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the bandwidth the reached experts' weights and the activations stream at",
        .access = member<Experts, &ExpertsCoefficients::memory>(), .fallback = d.experts.memory},
      F{.key = "overlap", .kind = Kind::number, .need = Need::optional,
        .doc = "p in (c^p + m^p)^(1/p) between the GEMMs' compute and the weights' stream",
        .access = member<Experts, &ExpertsCoefficients::overlap>(), .range = kKernelOverlap, .fallback = d.experts.overlap},
      F{.key = "tile", .kind = Kind::number, .need = Need::optional,
        .doc = "rows of the tile a reached expert's rows fill, half of it empty on average",
        .access = member<Experts, &ExpertsCoefficients::tile>(), .range = kExpertTile, .fallback = d.experts.tile},
      F{.key = "width", .kind = Kind::number, .need = Need::optional,
        .doc = "an expert's columns on a GPU at which its GEMMs reach half their share (narrow experts run short tiles)",
        .access = member<Experts, &ExpertsCoefficients::width>(), .range = kExpertWidth, .fallback = d.experts.width},
      F{.key = "launch", .kind = Kind::quantity, .need = Need::optional,
        .doc = "fixed time a layer: routing, permute, activation and finalize kernels",
        .access = member<Experts, &ExpertsCoefficients::launch>(), .fallback = d.experts.launch, .dimension = Dimension::time},
  };
  static const std::array experts_fp8 = {
      F{.key = "width", .kind = Kind::number, .need = Need::optional,
        .doc = "an fp8 expert's columns on a GPU at which its GEMMs reach half their share",
        .access = member<ExpertsFp8, &ExpertsFp8Coefficients::width>(), .range = kExpertWidth, .fallback = d.experts_fp8.width},
  };
  static const auto latent_decode = latent_decode_fields<&KernelCoefficients::latent_decode>(
      d.latent_decode, "share of the bandwidth a long latent stream reaches", "time of a kernel at short contexts");
  static const auto latent_prefill = prefill_fields<&KernelCoefficients::latent_prefill>(d.latent_prefill, "fixed time a kernel");
  static const auto delta_net_decode = recurrent_fields<&KernelCoefficients::delta_net_decode>(d.delta_net_decode);
  static const auto delta_net_prefill = recurrent_fields<&KernelCoefficients::delta_net_prefill>(d.delta_net_prefill);
  static const std::array kernels = {
      F{.key = "gemm", .kind = Kind::section, .need = Need::optional, .doc = "16-bit GEMMs (Q/K/V and gate/up fused)",
        .fields = gemm, .flow = true},
      F{.key = "gemm_fp8", .kind = Kind::section, .need = Need::optional,
        .doc = "fp8 GEMMs: the 16-bit GEMM's memory, overlap and launch, their own compute", .fields = fp8, .flow = true},
      F{.key = "gemm_fp8_block", .kind = Kind::section, .need = Need::optional,
        .doc = "block-scaled fp8 GEMMs (128 x 128 weight blocks): the 16-bit GEMM's memory, overlap and launch, their own "
               "tiles' compute, walk along K and activations' quantization",
        .fields = fp8_block, .flow = true},
      F{.key = "decode_attention", .kind = Kind::section, .need = Need::optional, .doc = "one query a sequence",
        .fields = decode, .flow = true},
      F{.key = "prefill_attention", .kind = Kind::section, .need = Need::optional, .doc = "causal attention over a prompt",
        .fields = prefill, .flow = true},
      F{.key = "elementwise", .kind = Kind::section, .need = Need::optional, .doc = "norms, activations, embedding rows",
        .fields = elementwise, .flow = true},
      F{.key = "all_reduce", .kind = Kind::section, .need = Need::optional, .doc = "the engine's all-reduce",
        .fields = all_reduce, .flow = true},
      F{.key = "nccl_all_reduce", .kind = Kind::section, .need = Need::optional, .doc = "NCCL's all-reduce (fitted, not priced)",
        .fields = nccl, .flow = true},
      F{.key = "experts", .kind = Kind::section, .need = Need::optional,
        .doc = "a MoE layer's routed experts, one fused grouped GEMM (16-bit; full tiles reach gemm.compute)", .fields = experts, .flow = true},
      F{.key = "experts_fp8", .kind = Kind::section, .need = Need::optional,
        .doc = "fp8 experts: the 16-bit experts' memory, overlap, tile and launch, gemm_fp8.compute, their own width",
        .fields = experts_fp8, .flow = true},
      F{.key = "latent_decode", .kind = Kind::section, .need = Need::optional,
        .doc = "latent attention's decode (MLA over the cached latent): the decode attention formula",
        .fields = latent_decode, .flow = true},
      F{.key = "latent_prefill", .kind = Kind::section, .need = Need::optional,
        .doc = "latent attention's prefill (192-wide keys, 128-wide values): the prefill attention formula",
        .fields = latent_prefill, .flow = true},
      F{.key = "delta_net_decode", .kind = Kind::section, .need = Need::optional,
        .doc = "a Gated DeltaNet layer's convolution and delta rule, one token a sequence", .fields = delta_net_decode,
        .flow = true},
      F{.key = "delta_net_prefill", .kind = Kind::section, .need = Need::optional,
        .doc = "the same over a prompt, in chunks of 64 tokens", .fields = delta_net_prefill, .flow = true},
      F{.key = "source", .kind = Kind::text, .need = Need::optional, .doc = "where the kernel coefficients come from",
        .access = member<InKernelSet, &KernelCoefficients::source>(), .fallback = d.source},
      F{.key = "own_tables", .kind = Kind::boolean, .need = Need::optional,
        .doc = "fitted on this GPU's own kernel tables (`fit --kernels --for` it writes true); false: borrowed "
               "from other GPUs' (every output then warns that the expected times are unmeasured here)",
        .access = member<InKernelSet, &KernelCoefficients::own_tables>(), .fallback = false},
      F{.key = "borrowed", .kind = Kind::choices, .need = Need::optional,
        .doc = "with own_tables: the classes this GPU's tables did not measure, priced with other GPUs' "
               "coefficients (every output names them)",
        .access = member<InKernelSet, &KernelCoefficients::borrowed>(), .range = kClassList, .words = kKernelClassWords},
  };
  static const std::array expected = {
      F{.key = "memory", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the bandwidth a long weight stream reaches", .access = member<InExpected, &ExpectedModel::memory>(),
        .fallback = kFit.memory},
      F{.key = "compute", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the peak a large GEMM reaches", .access = member<InExpected, &ExpectedModel::compute>(),
        .fallback = kFit.compute},
      F{.key = "launch", .kind = Kind::quantity, .need = Need::optional,
        .doc = "fixed time per operator and layer (launch gap, ramp, tail)",
        .access = member<InExpected, &ExpectedModel::launch>(), .fallback = kFit.launch.value(),
        .dimension = Dimension::time},
      F{.key = "step", .kind = Kind::quantity, .need = Need::optional,
        .doc = "a serving engine's fixed time per pass (sampling, scheduling, host synchronisation), fitted to "
               "published end-to-end runs; absent: the published fit's (`calibrate` measures kernels, not an engine, "
               "and keeps it)",
        .access = member<InExpected, &ExpectedModel::step>(), .fallback = kFit.step.value(),
        .dimension = Dimension::time},
      F{.key = "gap", .kind = Kind::quantity, .need = Need::optional,
        .doc = "the host's time between an engine's kernels, a kernel priced by its class (0 under CUDA graphs)",
        .access = member<InExpected, &ExpectedModel::gap>(), .fallback = kFit.gap.value(), .dimension = Dimension::time},
      F{.key = "hop_latency", .kind = Kind::quantity, .need = Need::optional,
        .doc = "per hop of a ring all-reduce, 2(tp - 1) hops a call",
        .access = member<InExpected, &ExpectedModel::hop_latency>(), .fallback = kFit.hop_latency.value(),
        .dimension = Dimension::time},
      F{.key = "dequant_int8", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of `memory` a weight-only one-byte GEMM streams at",
        .access = member<InExpected, &ExpectedModel::dequant_int8>(), .fallback = kFit.dequant_int8},
      F{.key = "dequant_int4", .kind = Kind::fraction, .need = Need::optional,
        .doc = "the same for sub-byte weights (int4, fp4, mxfp4...)",
        .access = member<InExpected, &ExpectedModel::dequant_int4>(), .fallback = kFit.dequant_int4},
      F{.key = "overlap", .kind = Kind::number, .need = Need::optional,
        .doc = "how a kernel's memory and compute times combine, (c^p + m^p)^(1/p): 1 adds them, large takes the larger",
        .access = member<InExpected, &ExpectedModel::overlap>(), .range = kOverlap, .fallback = kFit.overlap},
      F{.key = "skinny_rows", .kind = Kind::number, .need = Need::optional,
        .doc = "a GEMM's first rows, computed at `skinny_compute` (one matrix-vector product each, or a first tile); 0: none",
        .access = member<InExpected, &ExpectedModel::skinny_rows>(), .range = kSkinnyRows,
        .fallback = kFit.skinny_rows},
      F{.key = "skinny_compute", .kind = Kind::fraction, .need = Need::optional,
        .doc = "share of the peak those rows reach", .access = member<InExpected, &ExpectedModel::skinny_compute>(),
        .fallback = kFit.skinny_compute},
      F{.key = "spread_memory", .kind = Kind::number, .need = Need::optional,
        .doc = "log-normal spread of measured / expected, memory-bound phases: 10-90% is e^(±1.28 s)",
        .access = member<InExpected, &ExpectedModel::spread_memory>(), .range = kSpread,
        .fallback = kFit.spread_memory},
      F{.key = "spread_compute", .kind = Kind::number, .need = Need::optional,
        .doc = "the same for phases with compute ≥ 20% of the time",
        .access = member<InExpected, &ExpectedModel::spread_compute>(), .range = kSpread,
        .fallback = kFit.spread_compute},
      F{.key = "spread_overhead", .kind = Kind::number, .need = Need::optional,
        .doc = "the same for phases with launches and all-reduces ≥ 30% of the time",
        .access = member<InExpected, &ExpectedModel::spread_overhead>(), .range = kSpread,
        .fallback = kFit.spread_overhead},
      F{.key = "source", .kind = Kind::text, .need = Need::optional, .doc = "where the coefficients come from",
        .access = member<InExpected, &ExpectedModel::source>(), .fallback = kFit.source},
      F{.key = "kernels", .kind = Kind::section, .need = Need::optional,
        .doc = "kernel classes fitted to measured kernels (`fit --kernels`): they price the operators of their classes; "
               "shares of the datasheet ceilings",
        .fields = kernels, .present = [](const GpuSpec& g) { return g.expected && g.expected->kernels.has_value(); },
        .create = [](GpuSpec& g) { g.expected->kernels.emplace(); }},
  };
  static const std::array fields = {
      F{"name", Kind::text, Need::required, "the GPU's name", member<InGpu, &GpuSpec::name>()},
      F{.key = "source", .kind = Kind::text, .need = Need::optional, .doc = "where the figures come from",
        .access = member<InGpu, &GpuSpec::source>(), .fallback = std::string()},
      F{.key = "power", .kind = Kind::quantity, .need = Need::optional,
        .doc = "board power (TDP) from the datasheet; `plan` prices energy at it; absent: no energy",
        .access = member<InGpu, &GpuSpec::power>(), .dimension = Dimension::power},
      F{.key = "memory", .kind = Kind::section, .need = Need::required, .doc = "the memory's size and bandwidth", .fields = memory, .flow = true},
      F{.key = "compute", .kind = Kind::section, .need = Need::required, .doc = "the datasheet's compute ceilings", .fields = compute},
      F{.key = "interconnect", .kind = Kind::section, .need = Need::optional,
        .doc = "the link between GPUs; needed for `--tp` > 1", .fields = interconnect,
        .present = [](const GpuSpec& g) { return g.interconnect.has_value(); },
        .create = [](GpuSpec& g) { g.interconnect.emplace(); }, .flow = true},
      F{.key = "network", .kind = Kind::section, .need = Need::optional,
        .doc = "the network between domains (InfiniBand, RoCE); needed for groups larger than `interconnect.domain`",
        .fields = network, .present = [](const GpuSpec& g) { return g.network.has_value(); },
        .create = [](GpuSpec& g) { g.network.emplace(); }, .flow = true},
      F{.key = "efficiency", .kind = Kind::section, .need = Need::optional,
        .doc = "the reachable share of the datasheet figures", .fields = efficiency, .flow = true},
      F{.key = "calibration", .kind = Kind::section, .need = Need::optional,
        .doc = "measured by `rooflineplan calibrate`: replaces datasheet × efficiency", .fields = calibration,
        .present = [](const GpuSpec& g) { return g.calibration.has_value(); },
        .create = [](GpuSpec& g) { g.calibration.emplace(); }},
      F{.key = "expected", .kind = Kind::section, .need = Need::optional,
        .doc = "how far kernels fall short of the ceilings, for expected times beside the bound; absent: the "
               "published fit with the shipped kernel classes (`rooflineplan fit`, `fit --kernels`, `calibrate`); "
               "given: kernel classes only under its `kernels:`",
        .fields = expected, .present = [](const GpuSpec& g) { return g.expected.has_value(); },
        // A block says what it holds: kernel classes only under its own `kernels:` (a file with no
        // `expected:` at all gets the shipped model, kernel classes included).
        .create = [](GpuSpec& g) {
          g.expected.emplace();
          g.expected->kernels.reset();
        }},
  };
  static const Schema<GpuSpec> schema{fields, check};
  return schema;
}

}  // namespace roofline::io
