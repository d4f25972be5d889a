#include "io/schema.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>

#include "io/spec_loader.hpp"

namespace roofline::io {

namespace {

template <class Spec>
using Fields = std::span<const Field<Spec>>;

// --- Values

// Equal values, for leaving defaults out of what is written. A kernel list equals another only
// when both are empty: the default is none.
bool same(const Value& a, const Value& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<KernelRecord>>) return x.empty() && std::get<T>(b).empty();
        else if constexpr (std::is_same_v<T, std::vector<Choice>>) return x == std::get<T>(b);
        else return x == std::get<T>(b);
      },
      a);
}

// The shortest text in a readable unit that reads back exactly ("5.1 us", not the quotient's
// own digits "5.1000000000000005 us"), else the base unit, which always does.
std::optional<std::string> exact_text(double v, Dimension d, std::string_view unit) {
  const double scale = parse_quantity(fmt::format("1 {}", unit), d);
  for (int digits = 1; digits <= 17; ++digits) {
    // Rounded to `digits` significant digits, then written in its own shortest digits ("80",
    // not "8e+01").
    const std::string rounded = fmt::format("{:.{}g}", v / scale, digits);
    double number = 0;
    std::from_chars(rounded.data(), rounded.data() + rounded.size(), number);
    std::string readable = fmt::format("{} {}", number, unit);
    if (parse_quantity(readable, d) == v) return readable;
  }
  return std::nullopt;
}

// The readable unit's text, else the base unit's. A size may read better in a binary unit: a
// capacity as nvidia-smi reports it is "81559 MiB", not "85.520809984 GB"; a binary unit is taken
// when its text is shorter than the decimal one and no longer than the bytes themselves.
std::string quantity_text(double v, Dimension d) {
  struct Units {
    std::string_view readable, base;
  };
  const Units u = d == Dimension::bytes       ? Units{"GB", "B"}
                  : d == Dimension::bandwidth ? Units{"GB/s", "B/s"}
                  : d == Dimension::time      ? Units{"us", "s"}
                  : d == Dimension::power     ? Units{"W", "W"}
                                              : Units{"GFLOPS", "FLOPS"};
  const std::string base = fmt::format("{} {}", v, u.base);
  std::optional<std::string> text = exact_text(v, d, u.readable);
  if (d == Dimension::bytes) {
    for (const std::string_view unit : {"GiB", "MiB"}) {
      const std::optional<std::string> binary = exact_text(v, d, unit);
      if (binary && binary->size() <= base.size() && (!text || binary->size() < text->size())) text = binary;
    }
  }
  return text ? *text : base;
}

template <class Spec>
std::string value_text(const Field<Spec>& f, const Value& v) {
  switch (f.kind) {
    case Kind::text: return std::get<std::string>(v);
    case Kind::count:
    case Kind::small_count: return fmt::format("{}", std::get<long>(v));
    case Kind::number:
    case Kind::fraction: return fmt::format("{}", std::get<double>(v));  // shortest round-trip digits
    case Kind::boolean: return std::get<bool>(v) ? "true" : "false";
    case Kind::dtype: return std::string(name(std::get<DType>(v)));
    case Kind::weight_format: return std::string(name(std::get<WeightFormat>(v)));
    case Kind::choice: return std::string(f.words[static_cast<std::size_t>(std::get<Choice>(v).index)].word);
    case Kind::quantity: return quantity_text(std::get<double>(v), f.dimension);
    case Kind::choices:
    case Kind::peaks:
    case Kind::kernels:
    case Kind::section: break;
  }
  throw std::logic_error("value_text: not a scalar field");
}

// --- Reading

PeakTable read_peaks(const MapReader& r) {
  PeakTable peaks{};
  for (const std::string& key : r.keys()) {
    DType t{};
    try {
      t = parse_dtype(key);
    } catch (const std::invalid_argument& e) {
      r.fail(key, e.what());
    }
    peaks[static_cast<std::size_t>(t)] = FlopsPerSecond(r.quantity(key, Dimension::flops_rate));
  }
  return peaks;
}

std::vector<KernelRecord> read_kernels(const MapReader& r) {
  std::vector<KernelRecord> kernels;
  for (const std::string& name : r.keys()) {
    const MapReader k = r.child(name, {"best", "median", "spread"});
    // A kernel measures either bandwidth or compute; its unit says which.
    const bool bandwidth = k.string("best").find("B/s") != std::string::npos;
    const Dimension d = bandwidth ? Dimension::bandwidth : Dimension::flops_rate;
    kernels.push_back(
        {name, bandwidth, k.quantity("best", d), k.quantity("median", d), k.number("spread", kSpreadRange)});
  }
  return kernels;
}

template <class Spec>
Value read_choice(const MapReader& r, const Field<Spec>& f) {
  const std::string s = r.string(f.key);
  std::vector<std::string> options;
  for (std::size_t i = 0; i < f.words.size(); ++i) {
    if (s == f.words[i].word) return Choice{static_cast<int>(i)};
    options.push_back(fmt::format("`{}` ({})", f.words[i].word, f.words[i].meaning));
  }
  r.fail(f.key, fmt::format("must be {}, got \"{}\"", fmt::join(options, " or "), s));
}

template <class Spec>
Value read_choices(const MapReader& r, const Field<Spec>& f) {
  std::vector<Choice> out;
  for (const std::string& s : r.strings(f.key)) {
    std::size_t i = 0;
    while (i < f.words.size() && f.words[i].word != s) ++i;
    if (i == f.words.size()) {
      std::vector<std::string> options;
      for (const Word& w : f.words) options.push_back(fmt::format("`{}`", w.word));
      r.fail(f.key, fmt::format("\"{}\" is not one of {}", s, fmt::join(options, ", ")));
    }
    out.push_back(Choice{static_cast<int>(i)});
  }
  // The engine walks a pattern per layer; a list longer than any stack is not a pattern.
  if (f.range) {
    if (const auto why = outside(static_cast<double>(out.size()), fmt::format("{} items", out.size()), *f.range)) {
      r.fail(f.key, fmt::format("its length: {}", *why));
    }
  }
  return out;
}

template <class Spec>
Value read_value(const MapReader& r, const Field<Spec>& f) {
  switch (f.kind) {
    case Kind::text: return r.string(f.key);
    case Kind::count:
    case Kind::small_count: return f.range ? r.count(f.key, *f.range) : r.count(f.key);
    case Kind::number: return f.range ? r.number(f.key, *f.range) : r.number(f.key);
    case Kind::fraction: {
      // A share of a ceiling: below a thousandth it is a slip, and 1e-300 of a bandwidth made
      // every time infinite.
      const double v = r.number(f.key);
      if (!(v >= kLeastShare && v <= 1)) r.fail(f.key, fmt::format("must be a share in [0.001, 1], got {}", v));
      return v;
    }
    case Kind::boolean: return *r.optional_bool(f.key);
    case Kind::dtype:
      try {
        return parse_dtype(r.string(f.key));
      } catch (const std::invalid_argument& e) {
        r.fail(f.key, e.what());
      }
    case Kind::weight_format:
      try {
        return parse_weight_format(r.string(f.key));
      } catch (const std::invalid_argument& e) {
        r.fail(f.key, e.what());
      }
    case Kind::choice: return read_choice(r, f);
    case Kind::choices: return read_choices(r, f);
    case Kind::quantity: return r.quantity(f.key, f.dimension);
    case Kind::peaks: return read_peaks(r.child(f.key, {}));
    case Kind::kernels: return read_kernels(r.child(f.key, {}));
    case Kind::section: break;
  }
  throw std::logic_error("read_value: a section is not a value");
}

// The keys valid in one mapping: a section without a key lends its keys to its parent.
template <class Spec>
void collect_keys(Fields<Spec> fields, std::vector<std::string_view>& keys) {
  for (const Field<Spec>& f : fields) {
    if (f.kind == Kind::section && f.key.empty()) collect_keys(f.fields, keys);
    else keys.push_back(f.key);
  }
}

template <class Spec>
std::vector<std::string_view> keys_of(Fields<Spec> fields) {
  std::vector<std::string_view> keys;
  collect_keys(fields, keys);
  return keys;
}

template <class Spec>
bool given(const MapReader& r, const Field<Spec>& f) {
  if (!(f.kind == Kind::section && f.key.empty())) return r.has(f.key);
  for (const Field<Spec>& inner : f.fields) {
    if (given(r, inner)) return true;
  }
  return false;
}

// The reader of a given section's own mapping.
template <class Spec>
MapReader section_reader(const MapReader& r, const Field<Spec>& f) {
  return f.key.empty() ? r : r.child(f.key, keys_of(f.fields));
}

// Reading goes in three passes so that defaults and joint rules see every given value:
// the values given, then the defaults of optional fields, then (after the schema's rules)
// derived values and the fields still missing.
template <class Spec>
void read_given(const MapReader& r, Fields<Spec> fields, Spec& s) {
  for (const Field<Spec>& f : fields) {
    if (!given(r, f)) continue;
    if (f.kind != Kind::section) {
      f.access.set(s, read_value(r, f));
      continue;
    }
    if (f.create) f.create(s);
    read_given(section_reader(r, f), f.fields, s);
  }
}

template <class Spec>
void fill_defaults(const MapReader& r, Fields<Spec> fields, Spec& s) {
  for (const Field<Spec>& f : fields) {
    if (f.kind == Kind::section) {
      if (given(r, f)) fill_defaults(section_reader(r, f), f.fields, s);
    } else if (f.need == Need::optional && !given(r, f) && !std::holds_alternative<std::monostate>(f.fallback)) {
      f.access.set(s, f.fallback);
    }
  }
}

template <class Spec>
void fill_derived(const MapReader& r, Fields<Spec> fields, Spec& s) {
  for (const Field<Spec>& f : fields) {
    if (given(r, f)) {
      if (f.kind == Kind::section) fill_derived(section_reader(r, f), f.fields, s);
      continue;
    }
    std::optional<Value> v = f.derive ? f.derive(s) : std::nullopt;
    if (v) f.access.set(s, *v);
    else if (f.need != Need::optional) r.missing(f.key);
  }
}

// --- Writing

template <class Spec>
bool written(const Field<Spec>& f, const Spec& s);

template <class Spec>
bool any_written(Fields<Spec> fields, const Spec& s) {
  for (const Field<Spec>& f : fields) {
    if (written(f, s)) return true;
  }
  return false;
}

// Left out: an absent value, a default, a derived value the reader works out again; a section
// the spec lacks, or one that is always there (`efficiency`) and holds nothing but defaults.
template <class Spec>
bool written(const Field<Spec>& f, const Spec& s) {
  if (f.kind == Kind::section) return f.present ? f.present(s) : any_written(f.fields, s);
  const Value v = f.access.get(s);
  if (std::holds_alternative<std::monostate>(v)) return false;
  if (f.need == Need::optional && same(v, f.fallback)) return false;
  if (f.derive) {
    const std::optional<Value> derived = f.derive(s);
    if (derived && same(v, *derived)) return false;
  }
  return true;
}

template <class Spec>
void emit_value(YAML::Emitter& e, const Field<Spec>& f, const Value& v) {
  if (f.kind == Kind::peaks) {
    e << YAML::BeginMap;
    for (DType t : kAllDTypes) {
      if (const auto& p = std::get<PeakTable>(v)[static_cast<std::size_t>(t)]) {
        e << YAML::Key << std::string(name(t)) << YAML::Value << quantity_text(p->value(), Dimension::flops_rate);
      }
    }
    e << YAML::EndMap;
  } else if (f.kind == Kind::kernels) {
    e << YAML::BeginMap;
    for (const KernelRecord& k : std::get<std::vector<KernelRecord>>(v)) {
      const Dimension d = k.bandwidth ? Dimension::bandwidth : Dimension::flops_rate;
      e << YAML::Key << k.name << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "best" << YAML::Value
        << quantity_text(k.best, d) << YAML::Key << "median" << YAML::Value << quantity_text(k.median, d)
        << YAML::Key << "spread" << YAML::Value << fmt::format("{}", k.spread) << YAML::EndMap;
    }
    e << YAML::EndMap;
  } else if (f.kind == Kind::choices) {
    e << YAML::Flow << YAML::BeginSeq;
    for (const Choice c : std::get<std::vector<Choice>>(v)) e << std::string(f.words[static_cast<std::size_t>(c.index)].word);
    e << YAML::EndSeq;
  } else if (f.kind == Kind::boolean) {
    e << std::get<bool>(v);
  } else if (f.kind == Kind::count || f.kind == Kind::small_count) {
    e << std::get<long>(v);
  } else {
    e << value_text(f, v);
  }
}

// Written even when it is the default, for a block that says every value it holds: all but an
// absent value and a zero quantity, which the reader takes only as an absence ("none").
template <class Spec>
bool shown_in_full(const Field<Spec>& f, const Spec& s) {
  // A section the spec lacks (an optional one within the block) has nothing to show.
  if (f.kind == Kind::section) return !f.present || f.present(s);
  const Value v = f.access.get(s);
  if (std::holds_alternative<std::monostate>(v)) return false;
  return !(f.kind == Kind::quantity && std::get<double>(v) == 0);
}

// `every`: defaults too (shown_in_full).
template <class Spec>
void emit_fields(YAML::Emitter& e, Fields<Spec> fields, const Spec& s, bool every = false) {
  for (const Field<Spec>& f : fields) {
    if (every ? !shown_in_full(f, s) : !written(f, s)) continue;
    if (f.kind == Kind::section && f.key.empty()) {
      emit_fields(e, f.fields, s, every);
      continue;
    }
    e << YAML::Key << std::string(f.key) << YAML::Value;
    if (f.kind != Kind::section) {
      emit_value(e, f, f.access.get(s));
      continue;
    }
    if (f.flow) e << YAML::Flow;
    e << YAML::BeginMap;
    emit_fields(e, f.fields, s, every);
    e << YAML::EndMap;
  }
}

// --- Documentation

std::string_view dimension_label(Dimension d) {
  switch (d) {
    case Dimension::bytes: return "size";
    case Dimension::bandwidth: return "bandwidth";
    case Dimension::flops_rate: return "compute rate";
    case Dimension::time: return "time";
    case Dimension::power: return "power";
  }
  return "";
}

template <class Spec>
std::string kind_text(const Field<Spec>& f) {
  switch (f.kind) {
    case Kind::text: return "text";
    case Kind::count:
    case Kind::small_count: return "whole number";
    case Kind::number: return "number";
    case Kind::fraction: return "share in [0.001, 1]";
    case Kind::boolean: return "`true` or `false`";
    case Kind::dtype: {
      std::vector<std::string> names;
      for (DType t : kAllDTypes) names.push_back(fmt::format("`{}`", name(t)));
      return fmt::format("dtype: {}", fmt::join(names, " "));
    }
    case Kind::weight_format: return "weight format: a name from the table of weight formats";
    case Kind::choice: {
      std::vector<std::string> words;
      for (const Word& w : f.words) words.push_back(fmt::format("`{}` ({})", w.word, w.meaning));
      return fmt::format("{}", fmt::join(words, " or "));
    }
    case Kind::choices: {
      std::vector<std::string> words;
      for (const Word& w : f.words) words.push_back(fmt::format("`{}` ({})", w.word, w.meaning));
      return fmt::format("list of {}", fmt::join(words, ", "));
    }
    case Kind::quantity: return fmt::format("{}, like {}", dimension_label(f.dimension), example(f.dimension));
    case Kind::peaks: return fmt::format("dtype: compute rate, like fp16: {}", example(Dimension::flops_rate));
    case Kind::kernels: return "kernel name: `{best, median, spread}`, rates with units";
    case Kind::section: return "mapping";
  }
  return "";
}

template <class Spec>
std::string need_text(const Field<Spec>& f) {
  switch (f.need) {
    case Need::required: return "required";
    case Need::derived: return "worked out (see meaning)";
    case Need::optional:
      // Nothing worth saying for an empty default: no text, no table.
      if (std::holds_alternative<std::monostate>(f.fallback) || f.kind == Kind::peaks || f.kind == Kind::kernels ||
          (f.kind == Kind::text && std::get<std::string>(f.fallback).empty())) {
        return "optional";
      }
      return fmt::format("optional, default `{}`", value_text(f, f.fallback));
  }
  return "";
}

// Where a value may lie: the field's range, a dimension's, or what text must be.
template <class Spec>
std::string range_cell(const Field<Spec>& f) {
  switch (f.kind) {
    case Kind::text: return "printable UTF-8, one line";
    case Kind::quantity: return range_text(physical_range(f.dimension), f.dimension);
    case Kind::peaks: return range_text(physical_range(Dimension::flops_rate), Dimension::flops_rate);
    case Kind::kernels:
      return fmt::format("{}; {}; spread {}", range_text(physical_range(Dimension::bandwidth), Dimension::bandwidth),
                         range_text(physical_range(Dimension::flops_rate), Dimension::flops_rate),
                         range_text(kSpreadRange));
    default: return f.range ? range_text(*f.range) : "";
  }
}

template <class Spec>
void markdown_rows(Fields<Spec> fields, const std::string& prefix, std::string& out) {
  for (const Field<Spec>& f : fields) {
    if (f.kind == Kind::section && f.key.empty()) {
      markdown_rows(f.fields, prefix, out);
      continue;
    }
    out += fmt::format("| `{}{}` | {} | {} | {} | {} |\n", prefix, f.key, kind_text(f), need_text(f), f.doc,
                       range_cell(f));
    if (f.kind == Kind::section) markdown_rows(f.fields, fmt::format("{}{}.", prefix, f.key), out);
  }
}

template <class Spec>
std::string markdown(const Schema<Spec>& schema) {
  std::string out = "| field | value | if absent | meaning | range |\n|---|---|---|---|---|\n";
  markdown_rows(schema.fields, "", out);
  return out;
}

template <class Spec>
const Field<Spec>* find_path(Fields<Spec> fields, std::string_view path) {
  const auto dot = path.find('.');
  const std::string_view head = path.substr(0, dot);
  for (const Field<Spec>& f : fields) {
    if (f.kind == Kind::section && f.key.empty()) {
      if (const Field<Spec>* inner = find_path(f.fields, path)) return inner;
    } else if (f.key == head) {
      if (dot == std::string_view::npos) return &f;
      if (f.kind == Kind::section) return find_path(f.fields, path.substr(dot + 1));
    }
  }
  return nullptr;
}

}  // namespace

template <class Spec>
Spec read_document(const Schema<Spec>& schema, const YamlDocument& doc) {
  const MapReader r(doc, doc.root, "", keys_of(schema.fields));
  Spec s;
  read_given(r, schema.fields, s);
  fill_defaults(r, schema.fields, s);
  if (schema.check) schema.check(r, s);
  fill_derived(r, schema.fields, s);
  return s;
}

template <class Spec>
std::string write_document(const Schema<Spec>& schema, const Spec& spec) {
  YAML::Emitter e;
  e.SetBoolFormat(YAML::TrueFalseBool);
  e << YAML::BeginMap;
  emit_fields(e, schema.fields, spec);
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

template <class Spec>
std::string write_section(const Schema<Spec>& schema, const Spec& spec, std::string_view key) {
  const auto f = std::find_if(schema.fields.begin(), schema.fields.end(),
                              [key](const Field<Spec>& x) { return x.key == key && x.kind == Kind::section; });
  if (f == schema.fields.end()) throw std::logic_error(fmt::format("schema: no section `{}`", key));
  YAML::Emitter e;
  e.SetBoolFormat(YAML::TrueFalseBool);
  e << YAML::BeginMap << YAML::Key << std::string(key) << YAML::Value << YAML::BeginMap;
  emit_fields(e, f->fields, spec, true);
  e << YAML::EndMap << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

template <class Spec>
bool has_field(const Schema<Spec>& schema, std::string_view path) {
  return find_path(schema.fields, path) != nullptr;
}

template <class Spec>
Range field_range(const Schema<Spec>& schema, std::string_view path) {
  const Field<Spec>* f = find_path(schema.fields, path);
  if (!f || !f->range) throw std::logic_error(fmt::format("schema: `{}` has no range", path));
  return *f->range;
}

std::string schema_markdown(SchemaKind kind) {
  return kind == SchemaKind::model ? markdown(model_schema()) : markdown(gpu_schema());
}

namespace {

// Bytes a weight of an in × out matrix, as stored_bytes() prices it: "0.5 + 1 / 32 = 0.53125".
std::string bytes_text(const FormatLayout& l) {
  const double element = bytes_per_element(l.element), scale = l.scale_bytes + l.zero_bytes;
  const std::string matrix = l.matrix_bytes > 0 ? fmt::format(", + {} a matrix", l.matrix_bytes) : "";
  constexpr int kShown = 128;
  switch (l.scaling) {
    case Scaling::none: return fmt::format("{}", element);
    case Scaling::matrix: return fmt::format("{}, + {} a matrix", element, scale);
    case Scaling::channel: return fmt::format("{} + {} / in", element, scale);
    case Scaling::block:
      return fmt::format("{} + {} / {} = {}", element, scale, l.group * l.group, bytes_per_weight(l.format, 0));
    case Scaling::group:
      if (l.group > 0) {
        return fmt::format("{} + {} / {} = {}{}", element, scale, l.group, bytes_per_weight(l.format, 0), matrix);
      }
      return fmt::format("{} + {} / group ({} at group {})", element, scale, bytes_per_weight(l.format, kShown),
                         kShown);
  }
  return "";
}

}  // namespace

std::string weight_formats_markdown() {
  std::string out = "| format | stored as | bytes a weight |\n|---|---|---|\n";
  for (const FormatLayout& l : all_weight_formats()) {
    out += fmt::format("| `{}` | {} | {} |\n", l.name, l.doc, bytes_text(l));
  }
  return out;
}

template ModelSpec read_document(const Schema<ModelSpec>&, const YamlDocument&);
template GpuSpec read_document(const Schema<GpuSpec>&, const YamlDocument&);
template std::string write_document(const Schema<ModelSpec>&, const ModelSpec&);
template std::string write_document(const Schema<GpuSpec>&, const GpuSpec&);
template std::string write_section(const Schema<GpuSpec>&, const GpuSpec&, std::string_view);
template bool has_field(const Schema<ModelSpec>&, std::string_view);
template bool has_field(const Schema<GpuSpec>&, std::string_view);
template Range field_range(const Schema<ModelSpec>&, std::string_view);
template Range field_range(const Schema<GpuSpec>&, std::string_view);

}  // namespace roofline::io
