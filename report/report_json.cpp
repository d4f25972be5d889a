#include "report/report_json.hpp"

#include <string>

#include "report/report_columns.hpp"
#include "report/warning_text.hpp"

namespace roofline::report {

nlohmann::ordered_json cell_json(const Cell& c) {
  return std::visit(
      [](const auto& v) -> nlohmann::ordered_json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          return std::string(v);
        } else if constexpr (std::is_same_v<T, std::span<const std::string>>) {
          return nlohmann::ordered_json(std::vector<std::string>(v.begin(), v.end()));
        } else {
          return v;
        }
      },
      c);
}

namespace {

void append_ops(nlohmann::ordered_json& out, const Report& r) {
  for (const OpRow& op : op_rows(r)) {
    nlohmann::ordered_json row;
    for (const OpColumn& c : op_columns()) row[std::string(c.json_key)] = cell_json(c.get(op));
    out.push_back(std::move(row));
  }
}

}  // namespace

nlohmann::ordered_json report_json(const Report& r, bool with_ops) {
  nlohmann::ordered_json j;
  for (const Column& c : report_columns()) {
    // Each dot of the path opens a nested object: workload.weight_formats.experts.
    nlohmann::ordered_json* at = &j;
    std::string_view path = c.json_path;
    for (auto dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.')) {
      at = &(*at)[std::string(path.substr(0, dot))];
      path.remove_prefix(dot + 1);
    }
    (*at)[std::string(path)] = cell_json(c.get(r));
  }
  if (with_ops) {
    j["ops"] = nlohmann::ordered_json::array();
    append_ops(j["ops"], r);
  }
  j["warnings"] = warning_texts(r);
  return j;
}

}  // namespace roofline::report
