#include "report/layout_label.hpp"

#include <fmt/format.h>

namespace roofline::report {

std::string layout_label(const Workload& w) {
  std::string s = fmt::format("tp {}", w.tp);
  if (w.pp > 1) s += fmt::format(" × pp {}", w.pp);
  if (w.ep > 1) s += fmt::format(" ep {}", w.ep);
  if (w.dp_attention) s += " dp-attn";
  return s;
}

}  // namespace roofline::report
