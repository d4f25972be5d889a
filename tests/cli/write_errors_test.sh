#!/bin/sh
# Writes to a full device fail loudly: each command exits 1 and says why.
# Usage: write_errors_test.sh <rooflineplan binary> <examples folder>
set -u
bin=$1
ex=$2
status=0
expect_failure() {
  "$@" > /dev/full 2> /tmp/rooflineplan-write-errors.$$
  code=$?
  if [ "$code" -ne 1 ] || ! grep -q "No space left on device" /tmp/rooflineplan-write-errors.$$; then
    echo "FAIL (exit $code): $*"; cat /tmp/rooflineplan-write-errors.$$; status=1
  fi
}
m="-m $ex/7b.yaml -g $ex/a100.yaml"
expect_failure "$bin" $m
expect_failure "$bin" $m -f json
expect_failure "$bin" plan -m "$ex/7b.yaml" -g a100-80gb,h100-sxm
expect_failure "$bin" explain $m
expect_failure "$bin" convert llama-2-7b
expect_failure "$bin" presets
expect_failure "$bin" completion
expect_failure "$bin" sweep $m -b 1..1024:+1
# Past one chunk of 1024 points, rows come from the worker threads: CSV and JSON lines.
ROOFLINEPLAN_THREADS=2 expect_failure "$bin" sweep $m -b 1..4096:+1
ROOFLINEPLAN_THREADS=2 expect_failure "$bin" sweep $m -b 1..4096:+1 -f jsonl
expect_failure "$bin" sweep $m -b 1..64:x2 --out /dev/full
expect_failure "$bin" --help
expect_failure "$bin" fit "$ex/../tests/data/measurements/training.csv"
# A figure is written whole before its file is committed: the reason of the failed write survives.
full=/tmp/rooflineplan-full.$$
mkdir -p "$full" && ln -sf /dev/full "$full/r.svg" && ln -sf /dev/full "$full/r.png"
expect_failure "$bin" plot $m -o "$full/r.svg"
if "$bin" plot $m -o "$full/probe.png" > /dev/null 2>&1; then  # a build with Cairo
  expect_failure "$bin" plot $m -o "$full/r.png"
fi
expect_failure "$bin" explain $m --plot "$full/r.svg"
rm -rf "$full" /tmp/rooflineplan-write-errors.$$

# calibrate's own (the measurement kept on stdout) is tests/cli/test_calibrate.cpp's, on a fake
# device: measuring this machine here would take minutes.
exit $status
