#!/usr/bin/env bash
# Regenerate the README screenshots: the app on ETTh1 (sample_data/) in a real
# 1400x900 window under Xvfb — the dashboard, then the data set, sweep and compare panes reached by
# clicking as a user would (xdotool). Needs imagemagick and xdotool
# (apt-get install imagemagick xdotool) and a built binary.
#   bash scripts/screenshot.sh [path/to/wavebench] [data file]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/wavebench}
data=${2:-sample_data/ETTh1.csv}
[ -f "$data" ] || { echo "no such file: $data" >&2; exit 2; }
for t in import xdotool Xvfb; do
  command -v $t >/dev/null || { echo "needs $t (apt-get install imagemagick xdotool xvfb)"; exit 1; }
done
# A fresh HOME: the app starts with the default layout and settings, as a new user sees it.
export XDG_RUNTIME_DIR=$(mktemp -d) HOME=$(mktemp -d) DISPLAY=:57
Xvfb "$DISPLAY" -screen 0 1400x900x24 >/dev/null 2>&1 & xvfb=$!
trap 'kill $app $xvfb 2>/dev/null || true' EXIT
sleep 1
"$bin" gui "$data" >/dev/null 2>&1 & app=$!
sleep 8
# The pointer on a band plot shows its read-out there (Xvfb starts it mid-screen, where
# the read-out covered the energy chart).
xdotool mousemove 470 790; sleep 1
mkdir -p docs
import -window root docs/dashboard.png
# The Data set pane: its tab; the survey of every window comes back in a few seconds.
xdotool mousemove 578 240 click 1; sleep 12
import -window root docs/dataset.png
# The sweep: its tab, then "Run sweep" (every wavelet and level over ETTh1: about a minute).
xdotool mousemove 520 240 click 1; sleep 1
xdotool mousemove 372 262 click 1; sleep 150
import -window root docs/sweep.png
# Compare: pin A as B, type level 5 into A's level field, open the Compare tab.
xdotool mousemove 253 12 click 1; sleep 1
xdotool search --name wavebench windowfocus --sync 2>/dev/null || true
xdotool mousemove 136 415 click 1; sleep 0.5
xdotool key --delay 100 ctrl+a BackSpace 5 Return; sleep 2
xdotool mousemove 425 235 click 1; sleep 3
import -window root docs/compare.png
echo "wrote docs/dashboard.png docs/dataset.png docs/sweep.png docs/compare.png"
