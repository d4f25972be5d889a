#pragma once
// One table per document kind (model YAML, GPU YAML) says, once, what each field is: its key,
// the kind of value, whether it must be given, what it means, and where it lives in the spec.
// The same table drives reading (with located errors), writing, and the field table of docs/inputs.md,
// so a field added to a table is read, written and documented with no other change.
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "io/ranges.hpp"
#include "io/units_parse.hpp"
#include "io/yaml_document.hpp"
#include "model/model_spec.hpp"

namespace roofline::io {

enum class Kind {
  text,         // a non-empty string
  count,        // a whole number
  small_count,  // a whole number that fits an int (layers, heads, experts)
  number,       // a finite real number
  fraction,     // a share of a ceiling, in [kLeastShare, 1]
  boolean,      // true or false
  dtype,        // a dtype name: fp16, bf16, ...
  weight_format,  // a weight format's name: bf16, fp8-block, mxfp4, awq, ... (model/weight_format.hpp)
  choice,       // one of the field's `words`, stored as the word's index (the enum's value)
  choices,      // a list of the field's `words`, each stored as its index
  quantity,     // a positive value with a unit of the field's `dimension`
  peaks,        // a mapping dtype -> compute rate
  kernels,      // a mapping kernel name -> {best, median, spread}, rates with units
  section,      // a nested mapping of the field's `fields`; key "" puts them in the parent mapping
};

// A choice's index: the position of its word in `Field::words`, matching the enum's order.
struct Choice {
  int index = 0;
  bool operator==(const Choice&) const = default;
};

// One value read from or written to a field; monostate: absent (an optional without a value).
using Value = std::variant<std::monostate, bool, long, double, std::string, DType, WeightFormat, Choice,
                           std::vector<Choice>, PeakTable, std::vector<KernelRecord>>;

struct Word {
  std::string_view word;
  std::string_view meaning;
};

enum class Need {
  required,  // missing -> error
  optional,  // missing -> `fallback` (if any); the writer omits a value equal to it
  derived,   // missing -> `derive` from the other fields; required where that gives nothing
};

// Where a field's value lives in the spec. member<Part, &Struct::x>() makes one from the path
// to the struct that holds it (the spec itself, its architecture, its MoE, ...) and the member.
template <class Spec>
struct Access {
  Value (*get)(const Spec&) = nullptr;
  void (*set)(Spec&, const Value&) = nullptr;
};

template <class Spec>
struct Field {
  std::string_view key;
  Kind kind;
  Need need;
  std::string_view doc;  // one line for the table in docs/inputs.md
  Access<Spec> access{};  // not for sections
  // A count's or number's physical range (io/ranges.hpp), refused outside with the range named;
  // every count and number has one. A quantity's is its dimension's.
  std::optional<Range> range{};
  Value fallback{};
  std::optional<Value> (*derive)(const Spec&) = nullptr;
  Dimension dimension{};         // quantity
  std::span<const Word> words{};  // choice
  // A section: its fields, whether the spec has it (nullptr: always) and how to make it.
  std::span<const Field> fields{};
  bool (*present)(const Spec&) = nullptr;
  void (*create)(Spec&) = nullptr;
  bool flow = false;  // written on one line: `moe: {experts: 8, top_k: 2, ffn: 14336}`
};

template <class Spec>
struct Schema {
  std::span<const Field<Spec>> fields;
  // Rules that join fields (either `params` or an architecture; `head_dim` not with `mla`),
  // checked once every given value and default is in; they fail through `doc`, at the field.
  void (*check)(const MapReader& doc, const Spec& spec) = nullptr;
};

[[nodiscard]] const Schema<ModelSpec>& model_schema();
[[nodiscard]] const Schema<GpuSpec>& gpu_schema();

// The document's root mapping as a spec: unknown keys, wrong kinds, missing fields and broken
// joint rules are InputErrors naming file:line:column and the field. Range rules are the spec's.
template <class Spec>
[[nodiscard]] Spec read_document(const Schema<Spec>& schema, const YamlDocument& doc);

// The spec as YAML in the schema's order, leaving out values equal to their default.
template <class Spec>
[[nodiscard]] std::string write_document(const Schema<Spec>& schema, const Spec& spec);

// One top-level section alone (`key:` and its fields), defaults written too: a block to paste
// into a document, which says every value it holds (`rooflineplan fit --out`).
template <class Spec>
[[nodiscard]] std::string write_section(const Schema<Spec>& schema, const Spec& spec, std::string_view key);

// The range of the field `path` names ("moe.ffn"); std::logic_error for a path without one.
template <class Spec>
[[nodiscard]] Range field_range(const Schema<Spec>& schema, std::string_view path);

// Whether `path` ("moe.top_k") names a field of the schema.
template <class Spec>
[[nodiscard]] bool has_field(const Schema<Spec>& schema, std::string_view path);

enum class SchemaKind { model, gpu };

// --- Building tables: a member's C++ type decides how it travels as a Value.

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsEnumList : std::false_type {};
template <class E>
  requires std::is_enum_v<E>
struct IsEnumList<std::vector<E>> : std::true_type {};
template <class T>
struct IsQuantity : std::false_type {};
template <class Tag>
struct IsQuantity<Quantity<Tag>> : std::true_type {};

// Enums with a Kind of their own travel as themselves; the others as a choice's index.
template <class T>
inline constexpr bool kIsChoice = std::is_enum_v<T> && !std::is_same_v<T, DType> && !std::is_same_v<T, WeightFormat>;

template <class T>
Value to_value(const T& x) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else if constexpr (std::is_integral_v<T>) return static_cast<long>(x);
  else if constexpr (kIsChoice<T>) return Choice{static_cast<int>(x)};
  else if constexpr (IsQuantity<T>::value) return x.value();
  else if constexpr (IsOptional<T>::value) return x ? to_value(*x) : Value{};
  else if constexpr (IsEnumList<T>::value) {
    // An empty list is the default (no pattern): absent.
    if (x.empty()) return Value{};
    std::vector<Choice> out;
    for (const auto e : x) out.push_back(Choice{static_cast<int>(e)});
    return out;
  } else return x;  // double, std::string, DType, WeightFormat, PeakTable, kernels
}

template <class T>
T from_value(const Value& v) {
  if constexpr (std::is_same_v<T, bool>) return std::get<bool>(v);
  else if constexpr (std::is_integral_v<T>) {
    // The field's range keeps a value inside its member's type; a table that does not is a bug.
    const long x = std::get<long>(v);
    if (!std::in_range<T>(x)) throw std::logic_error("schema: a field's range lets a value past its member's type");
    return static_cast<T>(x);
  }
  else if constexpr (kIsChoice<T>) return static_cast<T>(std::get<Choice>(v).index);
  else if constexpr (IsQuantity<T>::value) return T(std::get<double>(v));
  else if constexpr (IsOptional<T>::value) {
    if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
    return from_value<typename T::value_type>(v);
  } else if constexpr (IsEnumList<T>::value) {
    T out;
    if (std::holds_alternative<std::monostate>(v)) return out;
    for (const Choice c : std::get<std::vector<Choice>>(v)) out.push_back(static_cast<typename T::value_type>(c.index));
    return out;
  } else return std::get<T>(v);
}

// `Part::of(spec)` is the struct holding the member (const or not, as the spec is), and
// `Part::Spec` the document's spec.
template <class Part, auto Member, class Spec = typename Part::Spec>
constexpr Access<Spec> member() {
  return {[](const Spec& s) { return to_value(Part::of(s).*Member); },
          [](Spec& s, const Value& v) {
            auto& m = Part::of(s).*Member;
            m = from_value<std::remove_cvref_t<decltype(m)>>(v);
          }};
}

// `Part` for an optional member of the spec that is a section of its own (`quantization`): the
// section's `create` makes it before any of its fields is set.
template <class S, auto Section>
struct InOptional {
  using Spec = S;
  static auto& of(auto& s) { return *(s.*Section); }
};

// One element of an array member indexed by an enum (Quantization::formats, a format per class).
template <class Part, auto Member, auto Index, class Spec = typename Part::Spec>
constexpr Access<Spec> element() {
  return {[](const Spec& s) { return to_value((Part::of(s).*Member)[static_cast<std::size_t>(Index)]); },
          [](Spec& s, const Value& v) {
            auto& m = (Part::of(s).*Member)[static_cast<std::size_t>(Index)];
            m = from_value<std::remove_cvref_t<decltype(m)>>(v);
          }};
}

// The field table of docs/inputs.md for one document kind, as GitHub Markdown.
[[nodiscard]] std::string schema_markdown(SchemaKind kind);
// The table of weight formats in docs/inputs.md (model/weight_format.hpp): each one's layout and exact bytes.
[[nodiscard]] std::string weight_formats_markdown();

extern template ModelSpec read_document(const Schema<ModelSpec>&, const YamlDocument&);
extern template GpuSpec read_document(const Schema<GpuSpec>&, const YamlDocument&);
extern template std::string write_document(const Schema<ModelSpec>&, const ModelSpec&);
extern template std::string write_document(const Schema<GpuSpec>&, const GpuSpec&);
extern template bool has_field(const Schema<ModelSpec>&, std::string_view);
extern template bool has_field(const Schema<GpuSpec>&, std::string_view);
extern template Range field_range(const Schema<ModelSpec>&, std::string_view);
extern template Range field_range(const Schema<GpuSpec>&, std::string_view);

}  // namespace roofline::io
