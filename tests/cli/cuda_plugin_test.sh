#!/bin/sh
# `--device cuda` through the real binary and its real plugin (build tree or install tree): the
# main binary links no CUDA library; on a machine with a GPU calibration runs; without one (no
# driver or no device) it exits 2 saying "no CUDA device", which shows the plugin was found and
# loaded, since only the plugin can say so.
# $1: the rooflineplan binary.
set -u
bin=$1
fail=0
if ldd "$bin" | grep -E 'libcudart|libcublas|libcuda\.so'; then
  echo "FAIL: $bin links a CUDA library (above)"; fail=1
fi
out=$(mktemp)
err=$(mktemp)
env -u ROOFLINEPLAN_PLUGIN_DIR "$bin" calibrate --device cuda --repetitions 1 --stream-size 4MiB --out "$out" 2>"$err" >/dev/null
rc=$?
if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  [ $rc = 0 ] && grep -q 'gemm_fp16_cublas' "$out" || { echo "FAIL: a GPU is present, calibrate exited $rc:"; cat "$err"; fail=1; }
else
  [ $rc = 2 ] && grep -q -e '--device cuda: no CUDA device' "$err" || { echo "FAIL: no GPU here: expected exit 2 and \"no CUDA device\", got $rc:"; cat "$err"; fail=1; }
fi
[ $fail = 0 ] && echo "cuda plugin: exit $rc: $(cat "$err")"
rm -f "$out" "$err"
exit $fail
