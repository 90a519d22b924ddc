#!/usr/bin/env bash
# Issue 44's "big files stay calm", checked on a real window: the app opens a large file
# under Xvfb (1400x900), and its CPU use is sampled once a second from /proc: after the
# load, then after the Data set tab is clicked (its survey of a thinned file runs and is
# refined while the tab is shown), until it rests. Needs xdotool and Xvfb.
#   bash scripts/app_idle_check.sh path/to/wavebench BIG.csv [SECONDS=60]
# BIG.csv: e.g. `python scripts/gen_big_csv.py BIG.csv 10000000` (10M rows x 7 channels).
set -euo pipefail
bin=$1 data=$2 secs=${3:-60}
export XDG_RUNTIME_DIR=$(mktemp -d) HOME=$(mktemp -d) DISPLAY=:58
Xvfb "$DISPLAY" -screen 0 1400x900x24 >/dev/null 2>&1 & xvfb=$!
trap 'kill $app $xvfb 2>/dev/null || true' EXIT
sleep 1
"$bin" gui "$data" >/dev/null 2>&1 & app=$!
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' /proc/$app/stat; }
rss() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' /proc/$app/status; }
last=$(ticks)
for s in $(seq 1 "$secs"); do
  sleep 1
  now=$(ticks)
  printf '%3d s  %5.1f %% of a core  %5s MB\n' "$s" "$(awk "BEGIN {print ($now - $last) * 100 / $hz}")" "$(rss)"
  last=$now
  # Half way: the Data set tab (as a user would click it), whose survey then runs.
  if [ "$s" -eq $((secs / 2)) ]; then
    xdotool mousemove 578 240 click 1
    echo "      (Data set tab clicked)"
  fi
done
