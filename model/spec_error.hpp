#pragma once
// A rule broken by a specification or a workload. `field` is the key as the user wrote it
// (`kv_heads`, `moe.top_k`, `batch`), so the edge can turn it into a file position or a flag.
#include <string>

namespace roofline {

struct SpecError {
  std::string field;
  std::string message;
};

}  // namespace roofline
