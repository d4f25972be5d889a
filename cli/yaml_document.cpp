#include "yaml_document.hpp"

#include <fmt/format.h>

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

#include "input_error.hpp"
#include "nearest_word.hpp"

namespace roofline::cli {

YamlDocument parse_yaml(const std::string& text, const std::string& path) {
  try {
    return {path, YAML::Load(text)};
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
                     std::initializer_list<std::string_view> allowed)
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
      throw InputError(fmt::format("{}: unknown key `{}{}`{}", where(entry.first.Mark()), prefix_, key,
                                   did_you_mean(key, valid)));
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

bool MapReader::has(std::string_view key) const { return std::as_const(node_)[std::string(key)].IsDefined(); }

YAML::Node MapReader::value(std::string_view key) const {
  YAML::Node v = std::as_const(node_)[std::string(key)];
  if (!v.IsDefined()) {
    throw InputError(fmt::format("{}: missing field `{}`", where(node_.Mark()), field(key)));
  }
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

MapReader MapReader::child(std::string_view key, std::initializer_list<std::string_view> allowed) const {
  return MapReader(*doc_, value(key), field(key) + ".", allowed);
}

std::optional<MapReader> MapReader::optional_child(std::string_view key,
                                                   std::initializer_list<std::string_view> allowed) const {
  if (!has(key)) return std::nullopt;
  return child(key, allowed);
}

std::vector<std::string> MapReader::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : node_) out.push_back(entry.first.Scalar());
  return out;
}

}  // namespace roofline::cli
