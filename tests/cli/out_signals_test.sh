#!/usr/bin/env bash
# SIGTERM and SIGINT during a long `sweep --out` leave no temporary file beside the target (they
# left .big.csv.PID-0.csv, 70 MB, behind), and the process still dies of the signal.
# $1: the rooflineplan binary.
set -u
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
set -m  # a job of its own: a background job's SIGINT is not ignored
for sig in TERM INT; do
  "$bin" sweep -m llama-2-7b -g a100-80gb -b 1..3000000:+1 --out "$dir/big.csv" 2>/dev/null &
  pid=$!
  # Wait until the temporary is there and being written.
  for _ in $(seq 1 100); do
    ls -A "$dir" | grep -q . && break
    sleep 0.05
  done
  ls -A "$dir" | grep -q . || { echo "no temporary appeared"; exit 1; }
  kill -s "$sig" "$pid"
  wait "$pid"
  code=$?
  case $sig in TERM) want=143 ;; INT) want=130 ;; esac
  [ "$code" = "$want" ] || { echo "SIG$sig: exit $code, not $want"; exit 1; }
  left=$(ls -A "$dir")
  [ -z "$left" ] || { echo "SIG$sig left: $left"; exit 1; }
done
echo "SIGTERM and SIGINT: no temporary left"
