#pragma once
// The words of `explain`, in English and Chinese (the course this tool serves is taught in
// Chinese). Every number is a named argument filled from engine reports; no phrase computes one.
#include <string_view>

namespace roofline::report {

struct Phrases {
  std::string_view ridge, prefill, prefill_moe, prefill_microbatches, prefill_moe_microbatches, at_most, only, decode, decode_longer,
      decode_longer_parts, decode_bubble, decode_bubble_ops, decode_stage, decode_stage_ops,
      formula_memory,
      formula_compute, formula_interconnect, stream_one, stream_each, decode_batch_total, cache_kinds, cache_windowed,
      cache_recurrent, cache_and, expected, expected_traffic_share, expected_traffic_hidden, expected_dequant,
      expected_dequant_mixed, expected_compute_hidden, expected_compute_overlap, expected_comm, kernel, kernels,
      batching, batching_cache, batching_grows, reads_once, reads_microbatch, batching_moe, every_step, every_microbatch, utilisation, utilisation_compute, utilisation_rest,
      wait_memory, wait_link, wait_stages, wait_and, wait_comma, beyond_memory, beyond_memory_none, remedies_title,
      remedy_prefill,
      remedy_flash, remedy_decode, remedy_decode_none, remedy_and, remedy_int4, remedy_kv8, remedy_speculative,
      remedy_speculative_state,
      remedy_batch_little, remedy_batch_grows, remedy_batch_memory, remedy_batch_over, remedy_batch_none,
      wrong_medicine, medicine_same, medicine_differ, quiz_title, q1, a1, a1_compute, a1_interconnect, per_microbatch, per_expert,
      q2, a2, q3, a3, a3_context, a3_no_crossover, a3_no_crossover_memory, a3_no_crossover_link, scenario, ranked_title, rank_line,
      rank_flash_in_use, int4, kv8,
      flash, speculative, above, below, compute, memory, interconnect, more_compute, more_memory, more_interconnect,
      // Per-GPU figures where the replica spans several GPUs; the collectives a step's hops come from.
      rereads, rereads_each, hops_ring, hops_collective, hops_send, hop, hops, hops_and, all_reduce, all_gather,
      reduce_scatter, all_to_all,
      // Past the weights' crossover a memory-bound step is bound by what the operators show.
      a1_past, past_gemms, past_gemms_moe, binder_cache, binder_experts, binder_activations, binder_and, kv_cache,
      kv_cache_state,
      // Data-parallel attention: whose weights serve each GPU's own sequences.
      read_each, read_each_dp, per_rank, per_expert_dp,
      step, steps;
};

[[nodiscard]] const Phrases& phrases(std::string_view lang);

// What the sentences call the device a point runs on ({device}, {devices}, {Device} in the
// phrases): a TPU is not a GPU. GpuSpec has no field for it, so it is read from the device's name:
// the word TPU, CPU or GPU where the name has it (Apple's presets name their chips' GPU, which is
// what they price; `calibrate` names a machine "cpu: …" or "cuda: …"), a GPU where NVIDIA, AMD
// Instinct or Radeon makes it; any other device (Intel's Gaudi 3, a file's own name) is an
// accelerator, a word true of every one of them.
enum class DeviceKind { gpu, tpu, cpu, accelerator };
[[nodiscard]] DeviceKind device_kind(std::string_view name);

struct DeviceWords {
  std::string_view one;      // "GPU"; in Chinese set off by spaces where it is a Latin name
  std::string_view many;     // "GPUs"; in Chinese "多卡", several of them
  std::string_view capital;  // at the start of a sentence: "Accelerator"
};
[[nodiscard]] const DeviceWords& device_words(DeviceKind kind, std::string_view lang);

}  // namespace roofline::report
