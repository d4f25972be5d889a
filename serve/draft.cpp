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
  return d;
}

}  // namespace roofline::serve
