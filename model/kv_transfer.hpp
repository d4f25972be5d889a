#pragma once
// Disaggregated serving moves each request's KV cache from the prefill pool to the decode pool
// (Splitwise, DistServe, Mooncake): the prompt's K/V (and recurrent state) in the cache format,
// sent by the GPUs of the prefill replica that hold it, each its own shard to its peer over its
// own link: the GPU's interconnect when a prefill and a decode replica fit one domain together
// (NVLink within a node), else its network. Under tensor parallelism each of a stage's tp GPUs
// holds a shard of every sequence's cache; under data-parallel attention one rank of the stage
// holds a sequence's whole cache (docs/layouts.md), so that rank sends it all over its one link,
// and the replica's tp ranks send tp caches at once, each over its own.
//
// The pair rule prices the placement a deployment chooses: each prefill replica paired with a
// decode replica in one domain. A fleet of many replicas that spans domains meets the network
// whenever its router pairs replicas across them (cli/plan_command.cpp warns of it).
#include <optional>
#include <string>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "model/workload.hpp"

namespace roofline {

struct KvTransfer {
  std::optional<Bytes> bytes;   // one request's prompt cache, whole group; empty: a model known only by its size
  std::optional<Seconds> time;  // empty: no bytes, the GPU names no interconnect, or `refused`
  // Of `time`, the link's latency (the rest is the sending GPU's shard at the link's bandwidth,
  // the time a transfer holds its link), and whether the link is the network rather than the
  // interconnect.
  std::optional<Seconds> latency;
  bool network = false;
  // Transfers a replica's links carry at once: its tp ranks under data-parallel attention (each
  // sends its own sequences' caches over its own link), else 1 (every GPU sends a shard of each).
  int links = 1;
  // Why `time` is empty where the GPU names an interconnect: the pair leaves its domain and it
  // names no network (pair_refusal's words).
  std::optional<std::string> refused;
};

// The GPUs of one replica that hold a shard of a sequence's cache, each sending its own: tp · pp,
// or pp under data-parallel attention (one rank a stage holds the sequence).
[[nodiscard]] int cache_senders(const Workload& w);

// A prefill and a decode replica of `pair` GPUs between them that leave the GPU's domain, where
// it names no network to join domains: the refusal in words, naming the missing field, as a
// layout larger than the domain is refused (model/workload.cpp). Empty where they can be priced.
[[nodiscard]] std::optional<std::string> pair_refusal(const GpuSpec& g, int prefill_gpus, int decode_gpus);

// bytes / cache_senders over each sender's link (or NIC), plus its latency.
[[nodiscard]] KvTransfer kv_transfer(const ModelSpec& m, const GpuSpec& g, const Workload& w);

}  // namespace roofline
