#include "launch/launch_script.hpp"

#include <fmt/format.h>

namespace roofline::launch {

namespace {

void comment_lines(std::string& out, std::string_view prefix, std::string_view text) {
  // One "# " line a sentence is enough: the lines are short, and a reader's editor wraps.
  out += fmt::format("# {}{}\n", prefix, text);
}

}  // namespace

std::string shell_quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

void add_common_warnings(Script& script, const LaunchSpec& s) {
  if (!s.model_is_id) {
    script.warnings.push_back(fmt::format(
        "the model was given as {}, not a Hugging Face id: put the checkpoint's id or folder in MODEL", s.model));
  }
  if (s.weights == WeightSource::other_checkpoint) {
    script.warnings.push_back(fmt::format(
        "the plan stores the weights as {}, which the checkpoint does not: MODEL must be a checkpoint that stores "
        "them as {} (the engine reads its format from the checkpoint's config)",
        s.weight_format, s.weight_format));
  }
  if (s.model_is_id && s.model_from_file) {
    script.warnings.push_back(fmt::format(
        "the model file's source names {}: MODEL is that checkpoint; set MODEL to yours if the file describes another",
        s.model));
  }
  for (const std::string& p : s.plan_only) script.warnings.push_back(p);
  if (s.lm_head_changed) {
    script.warnings.push_back(
        "--lm-head asked a format the checkpoint does not store: the engine keeps the LM head as the checkpoint has "
        "it, so its bytes differ from the plan's");
  }
  if (s.node_assumed) {
    script.warnings.push_back(fmt::format(
        "the GPU's description gives no interconnect.host, so its {}-GPU domain is taken as one host; where a host "
        "holds fewer (an NVL72 rack's trays hold 4), set GPUS_PER_NODE",
        s.gpus_per_node));
  }
  if (s.gpus_per_replica() > s.gpus_per_node) {
    script.warnings.push_back(fmt::format(
        "one replica spans {} GPUs, more than a {}-GPU node: start it across nodes as the engine's multi-node guide "
        "says; this script sets no CUDA_VISIBLE_DEVICES for it",
        s.gpus_per_replica(), s.gpus_per_node));
  }
}

std::string render(const Script& script, const LaunchSpec& s) {
  std::string out = "#!/usr/bin/env bash\n";
  comment_lines(out, "", fmt::format("rooflineplan plan, row {}: {}", s.rank, s.row));
  comment_lines(out, "", fmt::format("for {}, with the flags documented at {}", script.engine, script.documented_at));
  for (const std::string& n : script.notes) comment_lines(out, "", n);
  for (const std::string& w : script.warnings) comment_lines(out, "WARNING: ", w);
  const int g = s.gpus_per_replica();
  const std::string gpus = fmt::format("{} GPU{}", g, g == 1 ? "" : "s");
  comment_lines(out, "", s.replicas == 1 ? fmt::format("The plan runs one replica of {}: start this script once.", gpus)
                                         : fmt::format("The plan runs {} replicas of {} each: start this script once "
                                                       "per replica, REPLICA=0 to {}, each on its own GPUs and port, "
                                                       "behind a router.",
                                                       s.replicas, gpus, s.replicas - 1));
  out += "set -euo pipefail\n";
  out += fmt::format("MODEL=${{MODEL:-{}}}\n", shell_quoted(s.model));
  out += "REPLICA=${REPLICA:-0}\n";
  out += fmt::format("GPUS_PER_NODE=${{GPUS_PER_NODE:-{}}}\n", s.gpus_per_node);
  out += fmt::format("GPUS_PER_REPLICA={}\n", g);
  out += "if (( GPUS_PER_REPLICA <= GPUS_PER_NODE )); then\n"
         "  FIRST_GPU=$(( REPLICA % (GPUS_PER_NODE / GPUS_PER_REPLICA) * GPUS_PER_REPLICA ))\n"
         "  CUDA_VISIBLE_DEVICES=$(seq -s, \"$FIRST_GPU\" $(( FIRST_GPU + GPUS_PER_REPLICA - 1 )))\n"
         "  export CUDA_VISIBLE_DEVICES\n"
         "fi\n";
  out += "PORT=$(( 8000 + REPLICA ))\n";
  out += script.preamble;
  out += fmt::format("exec {} {}\"$MODEL\"", script.command, script.model_flag.empty() ? "" : script.model_flag + " ");
  for (const auto& [flag, value] : script.flags) {
    out += value.empty() ? fmt::format(" \\\n  {}", flag) : fmt::format(" \\\n  {} {}", flag, value);
  }
  out += fmt::format(" \\\n  {} \"$PORT\"\n", script.port_flag);
  return out;
}

}  // namespace roofline::launch
