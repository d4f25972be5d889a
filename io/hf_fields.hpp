#pragma once
// One mapping of a Hugging Face config.json (the config itself, its `text_config`, its
// `quantization_config`), read field by field and remembering which fields were read, so that
// what is left at the end can be held to the list of fields that do not change a roofline.
// A field the config leaves out takes its transformers default where the family table gives one.
#include <yaml-cpp/yaml.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/ranges.hpp"
#include "io/yaml_document.hpp"

namespace roofline::io {

// A transformers config class's default for a field a config may leave out (Gemma 3's text
// config omits `vocab_size`: 262,208).
struct HfDefault {
  std::string_view key;
  long value;
};

class HfFields {
 public:
  // `defaults`: the family's transformers defaults for this mapping. `what` names the family in
  // messages ("Gemma3ForConditionalGeneration").
  HfFields(const YamlDocument& doc, const YAML::Node& node, std::string prefix, std::string what,
           std::span<const HfDefault> defaults = {});

  [[nodiscard]] const std::string& what() const { return what_; }
  // Present with a value (JSON's null is absent, as transformers reads it).
  [[nodiscard]] bool given(std::string_view key) const;
  // Given with something in it: not null, not [] or {}.
  [[nodiscard]] bool filled(std::string_view key) const;
  // Given, or defaulted by the family.
  [[nodiscard]] bool has(std::string_view key) const;
  // In the mapping at all, null included: a key the config writes as null is not left out.
  [[nodiscard]] bool written(std::string_view key) const;
  // Given as a list (`vision_feature_layer`: one layer's index, or a list of them).
  [[nodiscard]] bool is_list(std::string_view key) const;

  // A whole number within the range of the model field it becomes (`moe.experts`; see
  // hf_range()), given or defaulted; remembered so that a rule the spec breaks later points here.
  [[nodiscard]] long count(std::string_view key, std::string_view field) const;
  [[nodiscard]] int small_count(std::string_view key, std::string_view field) const;
  [[nodiscard]] std::optional<long> optional_count(std::string_view key, std::string_view field) const;
  // A count that null (or 0, where `zero_is_none`) makes none, which a config must write: left out,
  // with no family default, it is refused naming the key (`left_out` says what the readers disagree
  // on), not 0.
  [[nodiscard]] long count_or_none(std::string_view key, std::string_view field, std::string_view left_out,
                                   bool zero_is_none = true) const;
  // A whole number within `range`, for fields that become no model field (a step, an interval).
  [[nodiscard]] long number_in(std::string_view key, Range range) const;
  // A number, whole or not, within `range`, given (a scaling factor).
  [[nodiscard]] double real_in(std::string_view key, Range range) const;
  // `field`: the model field it becomes, so that a rule the spec breaks later points here.
  [[nodiscard]] bool flag(std::string_view key, bool fallback, std::string_view field = {}) const;
  [[nodiscard]] std::string text(std::string_view key) const;
  // Lists, possibly empty; null is empty.
  [[nodiscard]] std::vector<std::string> words(std::string_view key) const;
  [[nodiscard]] std::vector<long> numbers(std::string_view key, Range range) const;
  // Refuses a per-layer list read from `key` (layer_types, mlp_layer_types …) of `entries` entries
  // unless it has one a layer.
  void require_per_layer(std::string_view key, std::size_t entries, int layers) const;
  // A nested mapping, itself read field by field.
  [[nodiscard]] HfFields child(std::string_view key, std::string what, std::span<const HfDefault> defaults = {}) const;
  [[nodiscard]] std::vector<std::string> keys() const;

  // Marks fields read by other means, or checked and found not to matter here.
  void use(std::string_view key) const;
  void use(std::initializer_list<std::string_view> keys) const;

  // Every field the family needs, checked at once so that the error lists all that are missing.
  void require(std::initializer_list<std::string_view> keys) const;

  // Refuses every field neither read nor harmless: on the list of fields known not to change
  // the architecture, the weights or the cache (kHarmlessFields in hf_fields.cpp), or on the
  // family's own list, or without a value (null, [] or {}). Recorded, as refuse() does.
  void refuse_unread(std::span<const std::string_view> family_harmless) const;

  // Records a field whose value the reader cannot price, and goes on reading, so that one error
  // names every such field of the config (this mapping's, its parent's and its children's).
  void refuse(std::string_view key, std::string_view why) const;
  // Throws the refusals recorded so far as one error, the first at its position, if any.
  void throw_refusals() const;
  // Records this mapping's refusals with `other`'s (a second file of one checkpoint).
  void share_refusals(const HfFields& other) { refusals_ = other.refusals_; }

  // Points at the config field a model field was read from (`sliding_window`, `moe.top_k`), for
  // the spec's rules, which name rooflineplan's fields. False where none of this mapping's was.
  [[nodiscard]] bool fail_at_origin(std::string_view field, std::string_view message) const;

  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  [[noreturn]] void fail_here(std::string_view message) const;

 private:
  void mark(std::string_view key, std::string_view field = {}) const;
  [[nodiscard]] const HfDefault* default_of(std::string_view key) const;
  [[nodiscard]] YAML::Node node(std::string_view key) const;

  const YamlDocument* doc_;
  YAML::Node node_;
  MapReader r_;
  std::string what_;
  std::span<const HfDefault> defaults_;
  mutable std::vector<std::string> read_;
  mutable std::vector<std::pair<std::string, std::string>> origins_;  // model field, config key
  // Shared with the mappings read from this one (child()), so the config's refusals meet in one list.
  std::shared_ptr<std::vector<std::string>> refusals_ = std::make_shared<std::vector<std::string>>();
};

// The range a model field is held to: the model schema's (io/model_schema.cpp), so that a config
// and a YAML file are held to the same ranges; `recurrent.head_dim` (a head's width, multiplied
// into recurrent.inner) to head_dim's.
[[nodiscard]] Range hf_range(std::string_view field);

}  // namespace roofline::io
