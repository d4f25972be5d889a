#!/usr/bin/env bash
# rooflineplan plan, row 1: NVIDIA H100 SXM with tp 8 ep 8 dp-attn, batch 130, TPOT 45.0 ms, TTFT 65.4 ms, 1 replica, sized on expected
# for vLLM 0.11, with the flags documented at https://docs.vllm.ai/en/v0.11.2/configuration/engine_args.html
# --data-parallel-size 8 --tensor-parallel-size 1 --enable-expert-parallel: attention data-parallel over 8 GPUs, the experts over all of them
# --max-num-seqs 17: the planned batch of 130 over 8 ranks
# --max-model-len 768: the plan's 512 prompt + 256 generated tokens; the engine refuses longer requests
# --max-num-batched-tokens 529: a whole 512-token prompt beside a token for each running sequence, the step the plan prices
# --gpu-memory-utilization 0.9: all but the plan's --reserve 0.1
# --quantization fp8: the 16-bit checkpoint's weights quantized to fp8 as they load
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
exec vllm serve "$MODEL" \
  --data-parallel-size 8 \
  --tensor-parallel-size 1 \
  --enable-expert-parallel \
  --max-num-seqs 17 \
  --max-num-batched-tokens 529 \
  --max-model-len 768 \
  --kv-cache-dtype fp8 \
  --quantization fp8 \
  --gpu-memory-utilization 0.9 \
  --host 0.0.0.0 \
  --port "$PORT"
