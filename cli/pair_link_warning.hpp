#pragma once
// The pair rule's warning, one sentence for `plan --disaggregate` and `simulate --disaggregate`:
// a cache's trip between the pools is priced for a prefill and a decode replica paired in one
// interconnect domain (model/kv_transfer.hpp); a fleet spanning more than one domain keeps that
// price only where its router pairs replicas within them. A warning, so every format carries it.
#include <optional>
#include <string>
#include <string_view>

#include "hardware/gpu_spec.hpp"

namespace roofline::cli {

// Where `fleet` GPUs span more than `g`'s domain: the warning, `whose` naming the fleet ("the
// steady plan's"), `priced` the trip's time over the interconnect where said, `shard` the bytes
// each sending GPU carries (the time over the network, where `g` names one). Empty where the fleet
// fits one domain. The caller has checked that the pair itself fits one (else it went over the network).
[[nodiscard]] std::optional<std::string> pair_link_warning(const GpuSpec& g, long fleet, std::string_view whose,
                                                           std::optional<Seconds> priced, Bytes shard);

}  // namespace roofline::cli
