#pragma once
// A YAML file read once at the edge, and the reading of its mappings with the checks every
// field needs: known keys only (with the nearest valid key as a hint), no duplicates, the right
// type, units on dimensioned values. Every error names file:line:column and the field.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/ranges.hpp"
#include "io/units_parse.hpp"

namespace roofline::io {

struct YamlDocument {
  std::string path;
  YAML::Node root;
};

// A description is a few kilobytes; a config.json a few more. Anything past this is not one
// (`--model /dev/zero`, a checkpoint given by mistake) and is refused before it is read.
inline constexpr long kMaxDescriptionBytes = 16L << 20;  // 16 MiB

// Throws InputError for a missing or unreadable file, one that is not a regular file (a FIFO,
// a device, a folder) or is larger than kMaxDescriptionBytes, and for what parse_yaml refuses.
[[nodiscard]] YamlDocument load_yaml_file(const std::string& path);
// The same for text already in memory (tests, fuzzing); `path` only names it in errors. Refused:
// malformed YAML, more than one document, text that is not UTF-8 or holds control characters
// (outside line breaks and tabs), keys with control characters, nesting deeper than 32 levels or
// more than 100,000 values. Errors name the position and never quote the text.
[[nodiscard]] YamlDocument parse_yaml(const std::string& text, const std::string& path);

// Refuses a text value that holds anything but printable UTF-8 (see io/text_check.hpp), naming
// `field` and the value's position. For values read outside a MapReader (a config's architecture).
void check_text(const YamlDocument& doc, const YAML::Node& value, std::string_view field);

// A quoted scalar ("32"): text, never read as a number (yaml-cpp tags it "!", a plain one "?").
[[nodiscard]] bool is_quoted(const YAML::Node& v);

class MapReader {
 public:
  // `prefix` is the dotted path of this mapping ("memory."), so errors name the full field.
  // `allowed`: the valid keys; none: any key (a table whose keys are data).
  MapReader(const YamlDocument& doc, const YAML::Node& node, std::string prefix,
            const std::vector<std::string_view>& allowed);

  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] bool has_value(std::string_view key) const;  // present and not null (JSON's null)
  [[nodiscard]] std::string string(std::string_view key) const;
  [[nodiscard]] std::optional<std::string> optional_string(std::string_view key) const;
  // A non-empty list of words (`layer_types`, a mixer pattern), each printable text.
  [[nodiscard]] std::vector<std::string> strings(std::string_view key) const;
  [[nodiscard]] long count(std::string_view key) const;  // a whole number, may be <= 0 (checked later)
  // A whole number within `range`, else an error naming the range.
  [[nodiscard]] long count(std::string_view key, Range range) const;
  [[nodiscard]] std::optional<long> optional_count(std::string_view key) const;
  // A count that must fit an int (layers, heads, experts): beyond a million is refused.
  [[nodiscard]] int small_count(std::string_view key) const;
  [[nodiscard]] double number(std::string_view key) const;
  [[nodiscard]] double number(std::string_view key, Range range) const;
  [[nodiscard]] std::optional<bool> optional_bool(std::string_view key) const;
  // A dimensioned value within its dimension's physical range (io/ranges.hpp): "2 TB/s".
  [[nodiscard]] double quantity(std::string_view key, Dimension d) const;
  [[nodiscard]] MapReader child(std::string_view key, const std::vector<std::string_view>& allowed) const;
  [[nodiscard]] std::optional<MapReader> optional_child(std::string_view key,
                                                        const std::vector<std::string_view>& allowed) const;
  // Keys of a mapping whose keys are data (a peak table's dtypes), in file order.
  [[nodiscard]] std::vector<std::string> keys() const;

  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  // The error fail() throws, as text: "file:line:column: field: message".
  [[nodiscard]] std::string error(std::string_view key, std::string_view message) const;
  [[noreturn]] void fail_here(std::string_view message) const;
  [[noreturn]] void missing(std::string_view key) const;
  // A dotted field ("moe.top_k", as the spec's rules name them): points into the mapping holding it.
  [[noreturn]] void fail_at(std::string_view path, std::string_view message) const;
  [[nodiscard]] std::string field(std::string_view key) const { return prefix_ + std::string(key); }

 private:
  [[nodiscard]] YAML::Node value(std::string_view key) const;  // throws for a missing key
  [[nodiscard]] YAML::Mark key_mark(std::string_view key) const;
  [[nodiscard]] std::string scalar(std::string_view key) const;
  // Refuses a quoted number: `layers: "32"`, JSON's "num_experts": "128".
  void require_unquoted(std::string_view key, std::string_view what) const;
  [[nodiscard]] std::string where(const YAML::Mark& mark) const;

  const YamlDocument* doc_;
  YAML::Node node_;
  std::string prefix_;
};

}  // namespace roofline::io
