#include "model/shard_check.hpp"

#include <fmt/format.h>

#include <cmath>

#include "model/parameters.hpp"

namespace roofline {

namespace {

// fp8-block's scale blocks (model/weight_format.cpp), along each of a matrix's two sides.
constexpr double kFp8Block = 128;

const LinearStep* linear_of(const PhasedStep& s) { return std::get_if<LinearStep>(&s.step); }

// The same linear in the whole model's layers: its block's label and its name.
const LinearStep* whole_of(const LayerStack& whole, const Block& block, const LinearStep& l) {
  for (const Block& b : whole.blocks) {
    if (b.label != block.label) continue;
    for (const PhasedStep& s : b.steps) {
      if (const LinearStep* w = linear_of(s); w && w->name == l.name) return w;
    }
  }
  return nullptr;
}

bool whole_multiple(double width, double of) { return std::fmod(width, of) == 0; }

// A width tp split (it differs from the whole model's) into a part not of whole blocks.
bool splits_a_block(double part, double whole) { return part != whole && !whole_multiple(part, kFp8Block); }

}  // namespace

std::optional<SpecError> check_shards(const LayerStack& whole, const LayerStack* split, const Precision& p) {
  const LayerStack& gpu = split ? *split : whole;
  for (const Block& block : gpu.blocks) {
    for (const PhasedStep& s : block.steps) {
      const LinearStep* l = linear_of(s);
      // A head's view of kv_b_proj is no tensor of its own (DeepSeek-V3's q_absorb takes 128
      // inputs of the 512 kv_b_proj stores: a group of 256 tiles the stored matrix).
      const std::optional<TensorClass> c = l && !l->absorbed ? tensor_class(l->weights) : std::nullopt;
      if (!c) continue;
      // The head is vocab-parallel and left out of engines' block quantization (vLLM's Fp8Config
      // quantizes linear layers and experts, and pads the head's partitions).
      const bool head = l->weights == WeightClass::lm_head;
      const WeightFormat f = p.of(*c);
      // GPTQ's, AWQ's and Marlin's kernels walk whole groups along K: vLLM refuses an input that
      // a group does not divide (its input_size_per_partition % group_size check). A tp that
      // splits whole groups apart is refused whatever the size; a size asked that leaves a partial
      // group in the whole matrix too. The default there prices a partial group as a share of one.
      if (takes_group_size(f) && !whole_multiple(l->in, p.group_size)) {
        const LinearStep* w = split ? whole_of(whole, block, *l) : nullptr;
        if (w && w->in != l->in && whole_multiple(w->in, p.group_size)) {
          return SpecError{"tp", fmt::format("tp {} splits {}'s {} input columns into {} a GPU, not whole groups of {} "
                                             "(--group-size): engines refuse to load it",
                                             split->tp, l->name, w->in, l->in, p.group_size)};
        }
        if (p.group_size_asked) {
          return SpecError{"group-size", fmt::format("{} weights a scale does not divide {}'s {} input columns on a "
                                                     "GPU: engines quantize whole groups along a matrix's input",
                                                     p.group_size, l->name, l->in)};
        }
      }
      // A block-exempt matrix (Gated DeltaNet's gates, LinearStep::block_exempt) is 16-bit, no blocks.
      if (f != WeightFormat::fp8_block || !split || head || l->block_exempt) continue;
      // vLLM and SGLang refuse a tensor-parallel shard that is not whole 128-wide blocks
      // (sgl-project/sglang#3345: DeepSeek-V3's 18432 columns at tp 32 are 576 a GPU).
      const LinearStep* w = whole_of(whole, block, *l);
      if (!w) continue;
      const bool out = splits_a_block(l->out, w->out), in = splits_a_block(l->in, w->in);
      if (out || in) {
        // The ways it is split: tp, or tp / ep for experts sharded over ep GPUs.
        const double whole_width = out ? w->out : w->in, part = out ? l->out : l->in;
        return SpecError{"tp", fmt::format("tp {} splits {}'s {} {} columns {} ways, into {} a GPU, not whole 128-wide "
                                           "blocks of its fp8-block scales: engines refuse to load it",
                                           split->tp, l->name, whole_width, out ? "output" : "input",
                                           whole_width / part, part)};
      }
    }
  }
  return std::nullopt;
}

}  // namespace roofline
