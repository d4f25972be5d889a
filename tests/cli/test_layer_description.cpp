// The layer description (model/layers.hpp) is the one source of parameter counts, operator costs
// and activation memory. These properties hold for every bundled model and every Hugging Face
// config the tests carry, so a new block kind that prices its weights in one place and counts
// them in another fails here.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_runner.hpp"
#include "io/presets.hpp"
#include "model/memory_ledger.hpp"
#include "model/operators.hpp"
#include "model/parameters.hpp"

using namespace roofline;

namespace {

std::vector<ModelSpec> described_models() {
  std::vector<ModelSpec> out;
  for (const io::Preset& p : io::list_presets(io::PresetKind::model)) out.push_back(io::load_model(p.path));
  for (const auto& e : std::filesystem::directory_iterator(test::data_file("hf"))) {
    if (e.path().stem() != "unknown-falcon") out.push_back(io::load_model(e.path().string()));
  }
  REQUIRE(out.size() >= 19);
  return out;
}

Bytes weight_bytes_of(const OpList& ops) {
  Bytes b;
  for (const OpCost& op : ops) b += op.weight_bytes;
  return b;
}

Flops matmul_flops(const OpList& ops) {
  Flops f;
  for (const OpCost& op : ops) {
    if (op.shape.count > 0) f += op.flops;
  }
  return f;
}

}  // namespace

TEST_CASE("layer description: each pass reads every weight but the gathered tables, as counted") {
  for (const ModelSpec& m : described_models()) {
    INFO(m.name);
    const Architecture& a = *m.architecture;
    const Workload w = test::default_workload(m, 1);
    const ParameterCount p = count_parameters(m);
    // The embedding (and learned positions) are gathered a row at a time; a tied LM head reads
    // the embedding's table once more as its own weights.
    const double eb = bytes_per_element(w.precision.embedding_dtype());
    const double tables = static_cast<double>(a.vocab + a.position_embeddings) * static_cast<double>(a.hidden);
    const double tied_head = a.tied_embeddings ? static_cast<double>(a.vocab) * static_cast<double>(a.hidden) : 0;
    const Bytes expected = weight_bytes(p, w.precision) - Bytes((tables - tied_head) * eb);
    for (const Phase phase : {Phase::prefill, Phase::decode}) {
      INFO(name(phase));
      CHECK(weight_bytes_of(build_ops(phase, m, w, ExpertRouting::all)).value() ==
            Approx(expected.value()).epsilon(1e-12));
    }
  }
}

TEST_CASE("layer description: a decode token multiplies 2 FLOPs by every active weight it reads") {
  for (const ModelSpec& m : described_models()) {
    INFO(m.name);
    const Architecture& a = *m.architecture;
    const ParameterCount p = count_parameters(m);
    const double head = static_cast<double>(a.vocab) * static_cast<double>(a.hidden);
    const double router = a.moe ? a.moe_layers() * static_cast<double>(a.hidden) * a.moe->experts : 0;
    const OpList ops = build_ops(Phase::decode, m, test::default_workload(m, 1), ExpertRouting::all);
    CHECK(matmul_flops(ops).value() == Approx(2 * (p.linear_active + head + router)).epsilon(1e-12));
  }
}

TEST_CASE("layer description: the cache a group holds is one GPU's cache times tp, never less than the model's") {
  for (const ModelSpec& m : described_models()) {
    INFO(m.name);
    Workload w = test::default_workload(m, 1);
    const Bytes whole = kv_bytes_per_token(m, w.precision);
    CHECK(group_kv_bytes_per_token(m, w) == whole);
    for (const int tp : {2, 4, 8}) {
      if (m.architecture->heads % tp != 0) continue;
      w.tp = tp;
      CHECK(group_kv_bytes_per_token(m, w) >= whole);
    }
  }
}
