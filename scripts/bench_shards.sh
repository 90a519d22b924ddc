#!/usr/bin/env bash
# BENCHMARKS.md's sharded sweeps (issue 45): one configuration, then N shards of a grid of
# 16 run one after another (as a cluster's array jobs would, each its own process) and
# merged; each process's wall time and peak RSS from GNU time.
#
#   scripts/bench_shards.sh WAVEBENCH DATA.csv OUTDIR [N=8]
#
# DATA: e.g. `python scripts/gen_benchmark_data.py electricity DATA.csv`.
set -euo pipefail
bin=$1 data=$2 out=$3 n=${4:-8}
grid=(--seq-len 512 --wavelets db2,db4,sym4,coif2 --levels 1,2,3,4)
mkdir -p "$out"
timed() { /usr/bin/time -f "$1 %e s wall, %U+%S s CPU, %M KB peak RSS" "${@:2}"; }
timed "one configuration (db4 level 3):" "$bin" sweep "$data" --seq-len 512 --wavelets db4 --levels 3 -o "$out/one.md" -q
for i in $(seq 1 "$n"); do
  timed "shard $i/$n:" "$bin" sweep "$data" "${grid[@]}" --shard "$i/$n" -o "$out/part-$i.json" -q
done
timed "merge:" "$bin" sweep merge "$out"/part-*.json -o "$out/sweep.md"
