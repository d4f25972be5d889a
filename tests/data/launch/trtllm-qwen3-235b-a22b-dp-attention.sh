#!/usr/bin/env bash
# rooflineplan plan, row 1: NVIDIA H100 SXM with tp 8 ep 8 dp-attn, batch 130, TPOT 45.0 ms, TTFT 65.4 ms, 1 replica, sized on expected
# for TensorRT-LLM 1.0, with the flags documented at https://nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve/trtllm-serve.html
# --max_batch_size 17: the planned batch of 130 over 8 attention ranks, each rank's own limit (not confirmed in the documentation)
# --max_seq_len 768: the plan's 512 prompt + 256 generated tokens; the engine refuses longer requests
# --max_num_tokens 529: a whole 512-token prompt beside a token for each running sequence, the step the plan prices
# free_gpu_memory_fraction 0.822: the plan's cache, of the memory left once the weights (0.441 of the fullest GPU) and one step's activations (under 0.001) are placed, --reserve 0.1 kept free
# WARNING: the plan stores the weights as fp8 and TensorRT-LLM does not quantize as it loads: MODEL must be an fp8 checkpoint made with NVIDIA Model Optimizer
# The plan runs one replica of 8 GPUs: start this script once.
set -euo pipefail
MODEL=${MODEL:-'Qwen/Qwen3-235B-A22B'}
REPLICA=${REPLICA:-0}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
GPUS_PER_REPLICA=8
if (( GPUS_PER_REPLICA <= GPUS_PER_NODE )); then
  FIRST_GPU=$(( REPLICA % (GPUS_PER_NODE / GPUS_PER_REPLICA) * GPUS_PER_REPLICA ))
  CUDA_VISIBLE_DEVICES=$(seq -s, "$FIRST_GPU" $(( FIRST_GPU + GPUS_PER_REPLICA - 1 )))
  export CUDA_VISIBLE_DEVICES
fi
PORT=$(( 8000 + REPLICA ))
OPTIONS=${OPTIONS:-/tmp/rooflineplan-trtllm-$REPLICA.yaml}
cat > "$OPTIONS" <<'YAML'
enable_attention_dp: true
kv_cache_config:
  dtype: fp8
  free_gpu_memory_fraction: 0.822
YAML
exec trtllm-serve "$MODEL" \
  --backend pytorch \
  --tp_size 8 \
  --ep_size 8 \
  --max_batch_size 17 \
  --max_num_tokens 529 \
  --max_seq_len 768 \
  --extra_llm_api_options "$OPTIONS" \
  --host 0.0.0.0 \
  --port "$PORT"
