#!/usr/bin/env bash
# How long a program takes to run when many copies start at once: the start storm a
# parallel test run makes (Docs/Testing.md, "A fresh machine").
#
#   scripts/start-storm.sh COPIES PROGRAM [ARGUMENTS...]
#   COLD=1 scripts/start-storm.sh 200 .build/debug/arborctl --version
#
# Starts COPIES copies of the program at the same moment and prints the wall time of each
# (from the common start to its exit): the fastest, the median, the 90th percentile and the
# slowest. With COLD=1 (as root) the page cache is dropped first, as on a machine that has
# never run the program.
set -euo pipefail
copies="$1"; shift
[[ "$copies" =~ ^[1-9][0-9]*$ ]] || { echo "COPIES is '$copies': a positive integer" >&2; exit 2; }
if [ "${COLD:-0}" = 1 ]; then
  sync
  echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || { echo "cannot drop the page cache (root is needed)" >&2; exit 2; }
fi
times=$(mktemp)
trap 'rm -f "$times"' EXIT
start=$(date +%s%N)
for _ in $(seq "$copies"); do
  ( "$@" >/dev/null 2>&1; echo $(( ($(date +%s%N) - start) / 1000000 )) >>"$times" ) &
done
wait
sort -n "$times" | awk -v copies="$copies" -v program="$*" -v cold="${COLD:-0}" '
  { t[NR] = $1 }
  END {
    printf "%d copies of %s%s: fastest %d ms, median %d ms, p90 %d ms, slowest %d ms\n", copies, program,
      (cold == 1 ? " (cold page cache)" : ""), t[1], t[int((NR + 1) / 2)], t[int(NR * 0.9 + 0.5)], t[NR]
  }'
