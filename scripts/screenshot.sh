#!/usr/bin/env bash
# Regenerate docs/screenshot.png: the app on sample_data/synthetic.csv in a real window
# under Xvfb. Needs the debug or release binary (make build) and, for the capture,
# imagemagick (apt-get install imagemagick).
#   bash scripts/screenshot.sh [path/to/wavebench]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/wavebench}
command -v import >/dev/null || { echo "needs imagemagick's 'import' (apt-get install imagemagick)"; exit 1; }
export XDG_RUNTIME_DIR=$(mktemp -d) DISPLAY=:57
Xvfb "$DISPLAY" -screen 0 1400x900x24 >/dev/null 2>&1 & xvfb=$!
trap 'kill $app $xvfb 2>/dev/null || true' EXIT
sleep 1
"$bin" gui sample_data/synthetic.csv >/dev/null 2>&1 & app=$!
sleep 8
mkdir -p docs
import -window root docs/screenshot.png
echo "wrote docs/screenshot.png"
