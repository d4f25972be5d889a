#!/usr/bin/env bash
# The device check of issues 4 and 13, prepared for a session that is lent a GPU: one short run that
# builds the CUDA backend for the chip (the plugin build-gpu/librooflineplan_cuda.so, beside the
# binary, which opens it for --device cuda), calibrates it and validates a model on it, and leaves
# the raw output under $OUT (the device tool brings it back) for calibrate/results/. The
# calibration compares the WMMA kernel with cuBLAS and the STREAM copy kernel (device to device)
# with the read and triad ones, then measures the expected model's curves (cuBLAS products, 39
# points, each filled from the host once per pass) and writes the fitted `expected:` section;
# validate then reports the bound and the expected time. Its budget is 8 GiB: validate fills every
# point's weights from the host once per pass (3 passes × 11 points), and 40 GiB of halves would
# take minutes of that alone. The same calibrate writes the kernel tables of issue 26 into
# $OUT/kernels (`--kernel-table`: 80 cuBLAS GEMMs, 11 prompts and 12 decode batches of an unfused
# attention kernel, NCCL's all-reduce when there are two GPUs or more), which `fit --kernels` then
# fits against the measured description, and NVIDIA's tables of the H100 and H200 are fitted too
# (the full ones from ../shared/ where they are, else the repository's fixtures) to compare the
# coefficients.
#   run: bash calibrate/run_on_gpu.sh   (timeout ≈ 540 s; the build takes ~3 min of it)
set -uo pipefail
out=${OUT:-calibrate/results}
arch=${CUDA_ARCH:-90}
base=${BASE_GPU:-h200}
mkdir -p "$out"
{
  echo "# $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" -DBUILD_TESTING=OFF >/dev/null &&
    cmake --build build-gpu -j"$(nproc)" --target rooflineplan rooflineplan_cuda 2>&1 | tail -3
  echo "\$ ldd rooflineplan (no CUDA library: only the plugin loads them)"
  ldd build-gpu/rooflineplan | grep -E 'cuda|cublas' || echo "none"
  ldd build-gpu/librooflineplan_cuda.so | grep -E 'cudart|cublas'
  echo "\$ rooflineplan calibrate --device cuda --base $base --kernel-table $out/kernels"
  ./build-gpu/rooflineplan calibrate --device cuda --base "$base" --repetitions 20 --out "$out/$base-measured.yaml" \
    --kernel-table "$out/kernels"
  echo "\$ rooflineplan fit --kernels $out/kernels/*.csv --gpu $out/$base-measured.yaml"
  ./build-gpu/rooflineplan fit --kernels "$out"/kernels/*.csv --gpu "$out/$base-measured.yaml" \
    --out "$out/$base-kernels-expected.yaml"
  ref=tests/data/gpu-kernels
  for d in ../shared/gpu-kernels/aiconfigurator shared/gpu-kernels/aiconfigurator; do [ -d "$d" ] && ref=$d && break; done
  echo "\$ rooflineplan fit --kernels $ref/h{100,200}_sxm_*.csv (NVIDIA's tables, to compare the coefficients)"
  ./build-gpu/rooflineplan fit --kernels "$ref"/h100_sxm_{gemm,context_attention,generation_attention,custom_allreduce}.csv \
    "$ref"/h200_sxm_{gemm,context_attention,generation_attention,custom_allreduce}.csv
  echo "\$ rooflineplan validate --device cuda -m llama-3.1-8b"
  ./build-gpu/rooflineplan validate --device cuda -m llama-3.1-8b -g "$out/$base-measured.yaml" --budget 8GiB \
    --batch 1..512:x2 --prompt 2048 --repetitions 10
  echo "\$ rooflineplan calibrate --device cpu (the host, for comparison)"
  ./build-gpu/rooflineplan calibrate --device cpu --repetitions 5 --out "$out/$base-host-cpu.yaml"
} 2>&1 | tee "$out/$base-run.txt"
