#!/usr/bin/env bash
# rooflineplan plan, row 1: NVIDIA H100 SXM with tp 8 ep 8 dp-attn, batch 130, TPOT 45.0 ms, TTFT 65.4 ms, 1 replica, sized on expected
# for SGLang 0.5, with the flags documented at https://docs.sglang.io/advanced_features/server_arguments.html
# --context-length 768: the plan's 512 prompt + 256 generated tokens; the engine refuses longer requests
# --max-running-requests 136: the planned batch of 130, 17 a rank over 8 ranks (SGLang divides it by --dp-size)
# no --enable-mixed-chunk: SGLang 0.5 fails at the first mixed step under --enable-dp-attention (sgl-project/sglang PR #24241); a rank's prefill runs as a step of its own, which every rank waits on, as the plan prices it
# --chunked-prefill-size 4096: a whole 512-token prompt for each of the 8 ranks, as the plan prefills
# --mem-fraction-static 0.9: weights and KV pool, all but the plan's --reserve 0.1 and one step's activations (under 0.001 of a GPU)
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
exec python -m sglang.launch_server --model-path "$MODEL" \
  --tp-size 8 \
  --ep-size 8 \
  --enable-dp-attention \
  --dp-size 8 \
  --max-running-requests 136 \
  --chunked-prefill-size 4096 \
  --context-length 768 \
  --kv-cache-dtype fp8_e4m3 \
  --quantization fp8 \
  --mem-fraction-static 0.9 \
  --host 0.0.0.0 \
  --port "$PORT"
