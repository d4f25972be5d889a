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
        } else {
          return v;
        }
      },
      c);
}

namespace {

void append_ops(nlohmann::ordered_json& out, Phase phase, const PhaseResult& p) {
  for (const OpResult& op : p.ops) {
    nlohmann::ordered_json row;
    for (const OpColumn& c : op_columns()) row[std::string(c.json_key)] = cell_json(c.get(phase, op));
    out.push_back(std::move(row));
  }
}

}  // namespace

nlohmann::ordered_json report_json(const Report& r, bool with_ops) {
  nlohmann::ordered_json j;
  for (const Column& c : report_columns()) {
    const auto dot = c.json_path.find('.');
    j[std::string(c.json_path.substr(0, dot))][std::string(c.json_path.substr(dot + 1))] = cell_json(c.get(r));
  }
  if (with_ops) {
    j["ops"] = nlohmann::ordered_json::array();
    append_ops(j["ops"], Phase::prefill, r.prefill);
    append_ops(j["ops"], Phase::decode, r.decode.step);
  }
  j["warnings"] = warning_texts(r);
  return j;
}

}  // namespace roofline::report
