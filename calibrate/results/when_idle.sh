#!/bin/bash
# Runs "$@" when the machine is idle, and says whether it stayed so.
# Waits until the CPUs were >= 95% idle over 3 windows of 5 s in a row (nobody else building,
# fuzzing or testing), runs the command, then reports the share of CPU time that processes other
# than the command took while it ran (from /proc/stat and the command's own /proc/<pid>/stat).
# Gives up waiting after $QUIET_MAX s (default 1200) and runs anyway, saying so.
max=${QUIET_MAX:-1200}; waited=0
jiffies() { read -r _ a b c d e f g h _ < /proc/stat; echo $((a+b+c+d+e+f+g+h)) $((d+e)); }
idle_share() {
  read -r t1 i1 <<< "$(jiffies)"; sleep 5; read -r t2 i2 <<< "$(jiffies)"
  echo $(( 100 * (i2 - i1) / (t2 - t1) ))
}
quiet=0
while [ $quiet -lt 3 ]; do
  if [ "$(idle_share)" -ge 95 ]; then quiet=$((quiet+1)); else quiet=0; fi
  waited=$((waited+5))
  if [ $waited -ge $max ]; then echo "# gave up waiting for quiet after ${waited}s" >&2; break; fi
done
read -r t1 i1 <<< "$(jiffies)"
echo "# start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$@" &
pid=$!
own=0
while kill -0 $pid 2>/dev/null; do
  s=$(awk '{print $14+$15+$16+$17}' /proc/$pid/stat 2>/dev/null) && own=$s
  sleep 0.5
done
wait $pid; rc=$?
read -r t2 i2 <<< "$(jiffies)"
busy=$(( (t2 - t1) - (i2 - i1) )); others=$(( busy - own )); [ $others -lt 0 ] && others=0
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg); others took $(( 100 * others / (t2 - t1) ))% of the CPU time while it ran" >&2
exit $rc
