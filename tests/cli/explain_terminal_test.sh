#!/bin/sh
# explain's chart fits the terminal it is printed on: 80 columns, or the terminal's where that is
# narrower ($COLUMNS here), since a terminal breaks a wider row across two and the chart falls
# apart; a pipe gets 80 whatever $COLUMNS says. `script` (util-linux) gives the command a terminal.
# Its subtitle wraps rather than losing " · tp 8". $1: the rooflineplan binary.
set -u
bin=$1
command -v script >/dev/null 2>&1 || { echo "skipped: no script(1) to give explain a terminal"; exit 77; }
# The chart's widest row: from the blank line after the story to the self-test, in columns.
widest() { tr -d '\r' | sed -n '/^$/,/^Self-test:/p' | LC_ALL=C.UTF-8 wc -L; }
run="$bin explain -m deepseek-v3 -g h200 --tp 8 -b 64"
fail=0
for columns in 60 40; do
  out=$(COLUMNS=$columns script -qec "$run" /dev/null)
  w=$(printf '%s\n' "$out" | widest)
  [ "$w" -le "$columns" ] || { echo "FAIL: in $columns columns the chart is $w wide"; fail=1; }
  case "$out" in *"tp 8"*) ;; *) echo "FAIL: in $columns columns the subtitle lost tp 8"; fail=1 ;; esac
done
w=$(COLUMNS=120 script -qec "$run" /dev/null | widest)
[ "$w" -le 80 ] && [ "$w" -ge 70 ] || { echo "FAIL: in 120 columns the chart is $w wide, not 80"; fail=1; }
w=$(COLUMNS=60 $run | widest)
[ "$w" -le 80 ] && [ "$w" -gt 60 ] || { echo "FAIL: through a pipe the chart is $w wide, not 80"; fail=1; }
[ $fail = 0 ] && echo "explain terminal: 6 passed, 0 failed"
exit $fail
