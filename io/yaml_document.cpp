#include "io/yaml_document.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>
#include <utility>

#include "io/input_error.hpp"
#include "io/nearest_word.hpp"
#include "io/text_check.hpp"
#include "io/text_file.hpp"

namespace roofline::io {

namespace {

// Descriptions are a few levels deep and a few hundred values long. Anchors and aliases let a
// short file stand for an exponential tree (billion laughs): its walk runs out of budget at once.
constexpr int kMaxDepth = 32;
constexpr long kMaxValues = 100'000;

std::string location(const std::string& path, const YAML::Mark& mark) {
  if (mark.is_null()) return path;
  return fmt::format("{}:{}:{}", path, mark.line + 1, mark.column + 1);
}

// yaml-cpp nests flow collections recursively and stops at 500 levels itself; either way the
// limit a user meets is ours.
InputError too_deep(const std::string& path, const YAML::Mark& mark) {
  return InputError(
      fmt::format("{}: nested more than {} levels deep; a description needs three", location(path, mark), kMaxDepth));
}

// The field a node is, for errors: "memory.capacity", "architectures[0]"; the document itself "".
std::string child_field(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : fmt::format("{}.{}", parent, key);
}

std::string named(const std::string& field) { return field.empty() ? "the document" : field; }

// Every node once: the size and depth limits, and text an output could not carry (every scalar
// must be UTF-8; a key, like a name, must also be free of control characters). Messages name
// the field and its position, never the offending text.
void check_node(const YAML::Node& node, int depth, long& budget, const std::string& path, const std::string& field) {
  if (--budget < 0) {
    throw InputError(fmt::format("{}: the document expands to more than {} values (anchors and aliases "
                                 "repeating a structure?); a description needs a few hundred",
                                 location(path, node.Mark()), kMaxValues));
  }
  if (depth > kMaxDepth) throw too_deep(path, node.Mark());
  if (node.IsScalar()) {
    if (const auto p = text_problem(node.Scalar(), TextUse::file)) {
      throw InputError(fmt::format("{}: {}: {}", location(path, node.Mark()), named(field), p->what));
    }
  } else if (node.IsSequence()) {
    std::size_t i = 0;
    for (const YAML::Node& child : node) check_node(child, depth + 1, budget, path, fmt::format("{}[{}]", field, i++));
  } else if (node.IsMap()) {
    for (const auto& entry : node) {
      const YAML::Node& key = entry.first;
      if (key.IsScalar()) {
        if (const auto p = text_problem(key.Scalar(), TextUse::value)) {
          throw InputError(fmt::format("{}: a key of {}: {}", location(path, key.Mark()), named(field), p->what));
        }
      }
      check_node(key, depth + 1, budget, path, field);
      check_node(entry.second, depth + 1, budget, path, key.IsScalar() ? child_field(field, key.Scalar()) : field);
    }
  }
}

// Bytes no text file holds (NUL, DEL, the controls outside line breaks and tabs), or bytes that
// are not UTF-8 anywhere in the file, comments included: refused by position only, so that a
// binary file or a secret given by mistake is never echoed.
void refuse_non_text(const std::string& text, const std::string& path) {
  if (const auto p = text_problem(text, TextUse::file)) {
    const TextPosition at = position_of(text, p->offset);
    throw InputError(fmt::format("{}:{}:{}: {}; a description is UTF-8 text", path, at.line, at.column, p->what));
  }
}

// Where the second document of a stream starts (its `---`), found by yaml-cpp's own event parser.
class DocumentStarts final : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Where a second document starts, or a null mark when there is none. A second start where the
// first one stood means the parser read nothing: text it cannot take (",") stops it at that spot.
YAML::Mark second_document(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (starts.starts.size() < 2 && parser.HandleNextDocument(starts)) {
  }
  if (starts.starts.size() < 2) return YAML::Mark::null_mark();
  if (starts.starts[1].pos == starts.starts[0].pos) throw YAML::ParserException(starts.starts[0], "unexpected text");
  return starts.starts[1];
}

// yaml-cpp's message up to its first colon: what follows quotes the input ("unknown escape
// character: <byte>"), and a file that is not a description is not to be echoed.
std::string_view without_quote(std::string_view message) { return message.substr(0, message.find(':')); }

// The first line of a .json file that opens with a comment (// or /*), 1-based; 0: none. A
// config edited by hand often gains one, and JSON has none: the error says so, not "malformed
// YAML" (the file is read as YAML, of which JSON is the flow style).
std::size_t json_comment_line(const std::string& text) {
  std::size_t line = 1;
  for (std::size_t start = 0; start < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::size_t first = text.find_first_not_of(" \t\r", start);
    if (first < end && (text.compare(first, 2, "//") == 0 || text.compare(first, 2, "/*") == 0)) return line;
    start = end + 1;
  }
  return 0;
}

}  // namespace

YamlDocument parse_yaml(const std::string& text, const std::string& path) {
  // Not YAML::LoadAll: on some malformed inputs (",\na: 1") it returns empty documents forever
  // without consuming the text, so memory grows until the process dies. Load reads the first
  // document; the event parser, stopped at the second start, finds whether there is another.
  YAML::Node root;
  YAML::Mark second;
  try {
    root = YAML::Load(text);
    second = second_document(text);
  } catch (const YAML::DeepRecursion& e) {
    throw too_deep(path, e.mark);
  } catch (const YAML::Exception& e) {
    refuse_non_text(text, path);
    if (path.ends_with(".json")) {
      if (const std::size_t line = json_comment_line(text); line > 0) {
        throw InputError(fmt::format("{}:{}:1: a comment: JSON has none (remove it)", path, line));
      }
      throw InputError(fmt::format("{}: malformed JSON: {}", location(path, e.mark), without_quote(e.msg)));
    }
    throw InputError(fmt::format("{}: malformed YAML: {}", location(path, e.mark), without_quote(e.msg)));
  }
  // yaml-cpp's Load reads the first document and drops the rest without a word.
  if (!second.is_null()) {
    throw InputError(fmt::format("{}: a second YAML document starts here; a description is one document (give "
                                 "each model or GPU its own file)",
                                 location(path, second)));
  }
  YamlDocument doc{path, root};
  long budget = kMaxValues;
  check_node(doc.root, 0, budget, path, "");
  refuse_non_text(text, path);
  return doc;
}

YamlDocument load_yaml_file(const std::string& path) {
  return parse_yaml(read_text_file(path, "a description", static_cast<std::size_t>(kMaxDescriptionBytes)), path);
}

void check_text(const YamlDocument& doc, const YAML::Node& value, std::string_view field) {
  if (!value.IsScalar()) return;
  if (const auto p = text_problem(value.Scalar(), TextUse::value)) {
    throw InputError(fmt::format("{}: {}: {}", location(doc.path, value.Mark()), field, p->what));
  }
}

namespace {

bool plain_word(std::string_view key) {
  return !key.empty() && key.size() <= 40 && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

}  // namespace

MapReader::MapReader(const YamlDocument& doc, const YAML::Node& node, std::string prefix,
                     const std::vector<std::string_view>& allowed)
    : doc_(&doc), node_(node), prefix_(std::move(prefix)) {
  const std::string what = prefix_.empty() ? "the document" : fmt::format("`{}`", prefix_.substr(0, prefix_.size() - 1));
  if (!node_.IsMap()) fail_here(fmt::format("{} must be a mapping of `key: value` lines", what));
  const std::vector<std::string> valid(allowed.begin(), allowed.end());
  std::vector<std::string> seen;
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) {
      throw InputError(fmt::format("{}: keys of {} must be plain words", where(entry.first.Mark()), what));
    }
    const std::string key = entry.first.Scalar();
    if (allowed.size() > 0 && std::find(valid.begin(), valid.end(), key) == valid.end()) {
      // Only a key that could be a misspelt field is quoted: a line of a file given by mistake
      // (`-m /etc/shadow`) is not echoed.
      if (!plain_word(key)) {
        throw InputError(fmt::format("{}: unknown key in {}, not a field name", where(entry.first.Mark()), what));
      }
      // The suggestion is a whole field, as the key is named: `moe.topk`, did you mean `moe.top_k`?
      std::vector<std::string> whole;
      for (const std::string& v : valid) whole.push_back(prefix_ + v);
      throw InputError(fmt::format("{}: unknown key `{}{}`{}", where(entry.first.Mark()), prefix_, key,
                                   did_you_mean(prefix_ + key, whole)));
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      throw InputError(fmt::format("{}: duplicate key `{}{}`", where(entry.first.Mark()), prefix_, key));
    }
    seen.push_back(key);
  }
}

std::string MapReader::where(const YAML::Mark& mark) const {
  if (mark.is_null()) return doc_->path;
  return fmt::format("{}:{}:{}", doc_->path, mark.line + 1, mark.column + 1);
}

// An empty value (`params:`) has its mark on the next line: the key is where the user looks.
void MapReader::fail(std::string_view key, std::string_view message) const { throw InputError(error(key, message)); }

std::string MapReader::error(std::string_view key, std::string_view message) const {
  const YAML::Node v = std::as_const(node_)[std::string(key)];
  const YAML::Mark mark = !v.IsDefined() ? node_.Mark() : v.IsNull() ? key_mark(key) : v.Mark();
  return fmt::format("{}: {}: {}", where(mark), field(key), message);
}

YAML::Mark MapReader::key_mark(std::string_view key) const {
  for (const auto& entry : node_) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.first.Mark();
  }
  return node_.Mark();
}

void MapReader::fail_here(std::string_view message) const {
  throw InputError(fmt::format("{}: {}", where(node_.Mark()), message));
}

void MapReader::missing(std::string_view key) const {
  throw InputError(fmt::format("{}: missing field `{}`", where(node_.Mark()), field(key)));
}

void MapReader::fail_at(std::string_view path, std::string_view message) const {
  const auto dot = path.find('.');
  if (dot == std::string_view::npos) fail(path, message);
  child(path.substr(0, dot), {}).fail_at(path.substr(dot + 1), message);
}

bool MapReader::has(std::string_view key) const { return std::as_const(node_)[std::string(key)].IsDefined(); }

bool MapReader::has_value(std::string_view key) const {
  const YAML::Node v = std::as_const(node_)[std::string(key)];
  return v.IsDefined() && !v.IsNull();
}

YAML::Node MapReader::value(std::string_view key) const {
  YAML::Node v = std::as_const(node_)[std::string(key)];
  if (!v.IsDefined()) missing(key);
  return v;
}

// Every value read: present, one value, printable text (names and sources reach terminals and
// documents as they are).
std::string MapReader::scalar(std::string_view key) const {
  const YAML::Node v = value(key);
  if (v.IsNull()) fail(key, "has no value");
  if (!v.IsScalar()) fail(key, "must be a single value, not a list or mapping");
  if (const auto p = text_problem(v.Scalar(), TextUse::value)) fail(key, p->what);
  return v.Scalar();
}

std::string MapReader::string(std::string_view key) const {
  std::string s = scalar(key);
  if (s.empty()) fail(key, "must not be empty");
  return s;
}

std::vector<std::string> MapReader::strings(std::string_view key) const {
  const YAML::Node v = value(key);
  if (!v.IsSequence() || v.size() == 0) fail(key, "must be a non-empty list of names in brackets, like [a, b]");
  std::vector<std::string> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const YAML::Node item = v[i];
    const std::string at = fmt::format("{}[{}]", key, i);
    if (!item.IsScalar() || item.Scalar().empty()) fail(key, fmt::format("{} must be a word", at));
    if (const auto p = text_problem(item.Scalar(), TextUse::value)) fail(key, fmt::format("{}: {}", at, p->what));
    out.push_back(item.Scalar());
  }
  return out;
}

std::optional<std::string> MapReader::optional_string(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return string(key);
}

namespace {

// The whole text must be the number: "32 layers" or "4096.5" is not a count.
template <class T>
std::optional<T> parse_whole(const std::string& s) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) return std::nullopt;
  }
  return v;
}

}  // namespace

// A quoted scalar is text: `layers: "32"` or JSON's "num_experts": "128" says the file was
// written by hand or by something that lost the type, and is not taken as a number.
// An explicit `!!str 32` says so as well.
bool is_quoted(const YAML::Node& v) { return v.IsScalar() && (v.Tag() == "!" || v.Tag() == "tag:yaml.org,2002:str"); }

void MapReader::require_unquoted(std::string_view key, std::string_view what) const {
  if (is_quoted(value(key))) {
    fail(key, fmt::format("must be {}, not the text \"{}\" (drop the quotes)", what, value(key).Scalar()));
  }
}

long MapReader::count(std::string_view key) const {
  const std::string s = scalar(key);
  require_unquoted(key, "a whole number");
  const auto v = parse_whole<long>(s);
  if (!v) fail(key, fmt::format("must be a whole number, got \"{}\"", s));
  return *v;
}

long MapReader::count(std::string_view key, Range range) const {
  const long v = count(key);
  if (const auto problem = outside(static_cast<double>(v), fmt::format("{}", v), range)) fail(key, *problem);
  return v;
}

std::optional<long> MapReader::optional_count(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return count(key);
}

int MapReader::small_count(std::string_view key) const {
  const long v = count(key);
  if (v > 1'000'000 || v < -1'000'000) fail(key, fmt::format("{} is implausibly large", v));
  return static_cast<int>(v);
}

double MapReader::number(std::string_view key) const {
  const std::string s = scalar(key);
  require_unquoted(key, "a number");
  const auto v = parse_whole<double>(s);
  if (!v) fail(key, fmt::format("must be a number, got \"{}\"", s));
  return *v;
}

double MapReader::number(std::string_view key, Range range) const {
  const double v = number(key);
  if (const auto problem = outside(v, scalar(key), range)) fail(key, *problem);
  return v;
}

std::optional<bool> MapReader::optional_bool(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  const std::string s = scalar(key);
  // A quoted "false" is text, and transformers reads any non-empty text as true: taken as false,
  // an HF config's "tie_word_embeddings": "false" priced a head the loaded model ties.
  require_unquoted(key, "true or false");
  if (s == "true") return true;
  if (s == "false") return false;
  fail(key, fmt::format("must be true or false, got \"{}\"", s));
}

double MapReader::quantity(std::string_view key, Dimension d) const {
  const std::string s = scalar(key);
  double v = 0;
  try {
    v = parse_quantity(s, d);
  } catch (const std::invalid_argument& e) {
    fail(key, e.what());
  }
  if (!(v > 0)) fail(key, fmt::format("must be positive, got \"{}\"", s));
  if (const auto problem = outside(v, fmt::format("\"{}\"", s), physical_range(d), d)) fail(key, *problem);
  return v;
}

MapReader MapReader::child(std::string_view key, const std::vector<std::string_view>& allowed) const {
  const YAML::Node v = value(key);
  if (v.IsNull()) fail(key, "has no value; it is a mapping of `key: value`");
  return MapReader(*doc_, v, field(key) + ".", allowed);
}

std::optional<MapReader> MapReader::optional_child(std::string_view key,
                                                   const std::vector<std::string_view>& allowed) const {
  if (!has(key)) return std::nullopt;
  return child(key, allowed);
}

std::vector<std::string> MapReader::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : node_) out.push_back(entry.first.Scalar());
  return out;
}

}  // namespace roofline::io
