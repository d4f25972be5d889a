#include "io/yaml_document.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <utility>

#include "io/input_error.hpp"
#include "io/nearest_word.hpp"

namespace roofline::io {

namespace {

// Descriptions are a few levels deep and a few hundred values long. Anchors and aliases let a
// short file stand for an exponential tree (billion laughs): its walk runs out of budget at once.
constexpr int kMaxDepth = 32;
constexpr long kMaxValues = 100'000;

InputError too_deep(const std::string& path, const YAML::Mark& mark, int depth) {
  return InputError(fmt::format("{}:{}:{}: nested more than {} levels deep; a description needs three", path,
                                mark.line + 1, mark.column + 1, depth));
}

void check_size(const YAML::Node& node, int depth, long& budget, const std::string& path) {
  if (--budget < 0) {
    throw InputError(fmt::format("{}:{}:{}: the document expands to more than {} values (anchors and aliases "
                                 "repeating a structure?); a description needs a few hundred",
                                 path, node.Mark().line + 1, node.Mark().column + 1, kMaxValues));
  }
  if (depth > kMaxDepth) throw too_deep(path, node.Mark(), kMaxDepth);
  if (node.IsSequence()) {
    for (const YAML::Node& child : node) check_size(child, depth + 1, budget, path);
  } else if (node.IsMap()) {
    for (const auto& entry : node) {
      check_size(entry.first, depth + 1, budget, path);
      check_size(entry.second, depth + 1, budget, path);
    }
  }
}

}  // namespace

YamlDocument parse_yaml(const std::string& text, const std::string& path) {
  try {
    YamlDocument doc{path, YAML::Load(text)};
    long budget = kMaxValues;
    check_size(doc.root, 0, budget, path);
    return doc;
  } catch (const YAML::DeepRecursion& e) {
    throw too_deep(path, e.mark, e.depth() - 1);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}:{}: malformed YAML: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

YamlDocument load_yaml_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("{}: is a directory, not a file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_yaml(text.str(), path);
}

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
      // The suggestion is a whole field, as the key is named: `moe.topk`, did you mean `moe.top_k`?
      const auto nearest = nearest_word(key, valid);
      throw InputError(fmt::format("{}: unknown key `{}{}`{}", where(entry.first.Mark()), prefix_, key,
                                   nearest ? fmt::format(", did you mean `{}{}`?", prefix_, *nearest) : ""));
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

void MapReader::fail(std::string_view key, std::string_view message) const {
  const YAML::Node v = std::as_const(node_)[std::string(key)];
  const YAML::Mark mark = v.IsDefined() ? v.Mark() : node_.Mark();
  throw InputError(fmt::format("{}: {}: {}", where(mark), field(key), message));
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

std::string MapReader::scalar(std::string_view key) const {
  const YAML::Node v = value(key);
  if (!v.IsScalar()) fail(key, "must be a single value, not a list or mapping");
  return v.Scalar();
}

std::string MapReader::string(std::string_view key) const {
  std::string s = scalar(key);
  if (s.empty()) fail(key, "must not be empty");
  return s;
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

long MapReader::count(std::string_view key) const {
  const std::string s = scalar(key);
  const auto v = parse_whole<long>(s);
  if (!v) fail(key, fmt::format("must be a whole number, got \"{}\"", s));
  return *v;
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
  const auto v = parse_whole<double>(s);
  if (!v) fail(key, fmt::format("must be a number, got \"{}\"", s));
  return *v;
}

std::optional<bool> MapReader::optional_bool(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  const std::string s = scalar(key);
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
  return v;
}

MapReader MapReader::child(std::string_view key, const std::vector<std::string_view>& allowed) const {
  return MapReader(*doc_, value(key), field(key) + ".", allowed);
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
