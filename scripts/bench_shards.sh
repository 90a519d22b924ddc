#!/usr/bin/env bash
# BENCHMARKS.md's sharded sweeps (issues 45 and 64): one configuration, then N shards of a
# grid of 16 run one after another (as a cluster's array jobs would, each its own
# process) and merged; then the same with the shared work prepared once (`sweep prepare`,
# each shard `--prepared`), whose merge must equal the first byte for byte. Each
# process's wall time, CPU time and peak RSS from GNU time, and the totals.
#
#   scripts/bench_shards.sh WAVEBENCH DATA.csv OUTDIR [N=8]
#
# DATA: e.g. `python scripts/gen_benchmark_data.py traffic DATA.csv`.
set -euo pipefail
bin=$1 data=$2 out=$3 n=${4:-8}
grid=(--seq-len 512 --wavelets db2,db4,sym4,coif2 --levels 1,2,3,4)
mkdir -p "$out"
log="$out/times.log"
: > "$log"
timed() {
  /usr/bin/time -o "$log" -a -f "$1 %e s wall, %U %S s CPU, %M KB peak RSS" "${@:2}"
  tail -n 1 "$log"
}
timed "one configuration (db4 level 3):" "$bin" sweep "$data" --seq-len 512 --wavelets db4 --levels 3 -o "$out/one.md" -q
for i in $(seq 1 "$n"); do
  timed "shard $i/$n:" "$bin" sweep "$data" "${grid[@]}" --shard "$i/$n" -o "$out/part-$i.json" -q
done
timed "merge:" "$bin" sweep merge "$out"/part-*.json -o "$out/sweep.md"
timed "prepare:" "$bin" sweep prepare "$data" --seq-len 512 -o "$out/prepared" -q
for i in $(seq 1 "$n"); do
  timed "prepared shard $i/$n:" "$bin" sweep "$data" "${grid[@]}" --prepared "$out/prepared" --shard "$i/$n" -o "$out/prepared-part-$i.json" -q
done
timed "prepared merge:" "$bin" sweep merge "$out"/prepared-part-*.json -o "$out/prepared-sweep.md"
cmp "$out/sweep.md" "$out/prepared-sweep.md" && echo "the prepared shards' merge is byte-identical"
# Totals: the shards alone, and with the prepare.
awk '/^shard/ {w+=$3; c+=$6+$7} /^prepare:/ {pw=$2; pc=$5+$6} /^prepared shard/ {qw+=$4; qc+=$7+$8}
     END {printf "unprepared shards: %.1f s wall, %.1f s CPU\nprepare + prepared shards: %.1f s wall, %.1f s CPU (prepare %.1f s CPU)\n", w, c, pw+qw, pc+qc, pc}' "$log"
