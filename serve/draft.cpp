#include "serve/draft.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace roofline::serve {

Draft model_draft(ModelSpec m) { return Draft{std::move(m), 1, false, false}; }

Draft mtp_draft(const ModelSpec& target) {
  if (!target.architecture || target.architecture->mtp_modules == 0) {
    throw std::invalid_argument(fmt::format(
        "{} ships no multi-token-prediction modules (a config's num_nextn_predict_layers, a model file's "
        "mtp_modules)",
        target.name));
  }
  const Architecture& a = *target.architecture;
  Draft d;
  d.modules = a.mtp_modules;
  d.shares_tables = true;
  d.reads_target = true;
  d.model = target;
  d.model.name = target.name + " MTP";
  d.model.assumptions.clear();
  Architecture& one = *d.model.architecture;
  one.layers = 1;
  one.mixer_pattern = {a.mixer(a.layers - 1)};
  one.ffn_pattern = {a.ffn_kind(a.layers - 1)};
  if (one.moe) one.moe->dense_layers = 0;
  one.mtp_modules = 0;
  one.mtp_input = true;
  // One block of the last layer's kind, and nothing the whole model holds once: the towers, the
  // per-layer inputs, layers reading earlier layers' cache; the full layers' own shape only where
  // the block is one.
  one.tower_params = 0;
  one.per_layer_input = one.per_layer_vocab = 0;
  one.kv_shared_layers = 0;
  one.kv_shared_ffn = 0;
  if (one.mixer_pattern.front() != Mixer::full) one.full_attention.reset();
  drop_unused(d.model);
  return d;
}

}  // namespace roofline::serve
