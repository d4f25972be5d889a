#include "hardware/roofline.hpp"

namespace roofline {

std::string_view name(Bound b) {
  switch (b) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::interconnect: return "interconnect";
  }
  return "memory";
}

}  // namespace roofline
