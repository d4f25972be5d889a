#pragma once
// Flags that size an allocation (validate's --batch, --prompt and --budget, calibrate's
// --stream-size) are checked against the machine's memory before anything is allocated: a typo
// is refused by name, not met by the kernel's out-of-memory killer.
#include <optional>
#include <string_view>

namespace roofline::cli {

// Throws io::InputError naming `flag`, the bytes `what` needs and the memory available, when
// `bytes` exceeds what this machine can allocate now.
void require_memory(double bytes, std::string_view flag, std::string_view what);
// The same against a given amount available (nullopt: unknown, nothing is refused).
void require_memory(double bytes, std::string_view flag, std::string_view what, std::optional<double> available);

}  // namespace roofline::cli
