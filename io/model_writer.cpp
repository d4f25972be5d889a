#include "io/model_writer.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace roofline::io {

namespace {

void emit_architecture(YAML::Emitter& e, const Architecture& a) {
  e << YAML::Key << "layers" << YAML::Value << a.layers;
  e << YAML::Key << "hidden" << YAML::Value << a.hidden;
  e << YAML::Key << "heads" << YAML::Value << a.heads;
  e << YAML::Key << "kv_heads" << YAML::Value << a.kv_heads;
  // head_dim only where it is not hidden / heads (nor set by mla), as the schema expects.
  if (!a.mla && a.head_dim * a.heads != a.hidden) e << YAML::Key << "head_dim" << YAML::Value << a.head_dim;
  if (a.dense_ffn_layers() > 0) e << YAML::Key << "ffn" << YAML::Value << a.ffn;
  e << YAML::Key << "ffn_type" << YAML::Value << (a.ffn_type == FfnType::gated ? "gated" : "plain");
  e << YAML::Key << "vocab" << YAML::Value << a.vocab;
  e << YAML::Key << "tied_embeddings" << YAML::Value << a.tied_embeddings;
  if (a.attention_bias) e << YAML::Key << "attention_bias" << YAML::Value << true;
  if (a.linear_bias) e << YAML::Key << "linear_bias" << YAML::Value << true;
  if (a.norm == NormType::layernorm) e << YAML::Key << "norm" << YAML::Value << "layernorm";
  if (a.position_embeddings > 0) e << YAML::Key << "position_embeddings" << YAML::Value << a.position_embeddings;
  if (a.moe) {
    e << YAML::Key << "moe" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "experts" << YAML::Value
      << a.moe->experts << YAML::Key << "top_k" << YAML::Value << a.moe->top_k << YAML::Key << "ffn" << YAML::Value
      << a.moe->ffn;
    if (a.moe->shared_experts > 0) e << YAML::Key << "shared_experts" << YAML::Value << a.moe->shared_experts;
    if (a.moe->dense_layers > 0) e << YAML::Key << "dense_layers" << YAML::Value << a.moe->dense_layers;
    e << YAML::EndMap;
  }
  if (a.mla) {
    const LatentAttention& l = *a.mla;
    e << YAML::Key << "mla" << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (l.q_lora_rank > 0) e << YAML::Key << "q_lora_rank" << YAML::Value << l.q_lora_rank;
    e << YAML::Key << "kv_lora_rank" << YAML::Value << l.kv_lora_rank << YAML::Key << "nope_dim" << YAML::Value
      << l.nope_dim << YAML::Key << "rope_dim" << YAML::Value << l.rope_dim << YAML::Key << "v_dim" << YAML::Value
      << l.v_dim << YAML::EndMap;
  }
}

}  // namespace

std::string model_yaml(const ModelSpec& m) {
  YAML::Emitter e;
  e.SetBoolFormat(YAML::TrueFalseBool);
  e << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << m.name;
  if (!m.source.empty()) e << YAML::Key << "source" << YAML::Value << m.source;
  if (m.architecture) emit_architecture(e, *m.architecture);
  else e << YAML::Key << "params" << YAML::Value << fmt::format("{}", m.declared_params);
  e << YAML::Key << "dtype" << YAML::Value << std::string(name(m.dtype));
  if (m.max_context) e << YAML::Key << "max_context" << YAML::Value << *m.max_context;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace roofline::io
