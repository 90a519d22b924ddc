#!/usr/bin/env bash
# The app as a new user sees it: a real 1400x900 window under Xvfb, fresh settings and the
# default layout, on three data sets (a generated file every 10 minutes, ETTh1 hourly from
# sample_data/, a generated weekly file). The app's screenshot tour (`gui --screenshots`)
# brings each pane to the front by its title, waits for what it computes (the survey, the
# sweep) and saves the window:
#   OUTDIR/{ten_minutes,etth1,weekly}/{dashboard,dataset,sweep,compare}.png
# With --docs, ETTh1's four pictures replace the README's docs/*.png.
#   bash scripts/screenshot.sh OUTDIR [--docs] [path/to/wavebench]
# Needs Xvfb (apt-get install xvfb) and python3, xdotool if there (to park the pointer);
# a built binary (default: target/release).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,10p' "$0"; exit 2; }
out=$1; shift
docs=false
if [ "${1:-}" = --docs ]; then docs=true; shift; fi
bin=${1:-target/release/wavebench}
[ -x "$bin" ] || { echo "no binary at $bin (build it, or pass its path)" >&2; exit 2; }
command -v Xvfb >/dev/null || { echo "needs Xvfb (apt-get install xvfb)" >&2; exit 1; }
mkdir -p "$out"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

# A weather-like file every 10 minutes (139 days) and an ILI-like weekly one (20 years):
# daily and yearly cycles under noise, the same bytes every run.
python3 - "$data" <<'EOF'
import datetime, math, random, sys
d = sys.argv[1]
rng = random.Random(7)
t0 = datetime.datetime(2020, 1, 1)
with open(f"{d}/ten_minutes.csv", "w") as f:
    f.write("date,T,rh,wv\n")
    for i in range(20_000):
        day = i / 144
        temp = 8 + 6 * math.sin(2 * math.pi * (day - 0.3)) + 4 * math.sin(2 * math.pi * day / 30) + rng.gauss(0, 0.6)
        rh = 70 - 2.5 * (temp - 8) + rng.gauss(0, 3)
        wv = abs(2 + math.sin(2 * math.pi * day / 3.5) + rng.gauss(0, 0.8))
        f.write(f"{(t0 + datetime.timedelta(minutes=10 * i)).isoformat(sep=' ')},{temp:.3f},{rh:.2f},{wv:.3f}\n")
with open(f"{d}/weekly.csv", "w") as f:
    f.write("date,ili,visits\n")
    for i in range(1043):
        season = math.exp(3 * math.cos(2 * math.pi * (i - 4) / 52.18)) / math.exp(3)
        ili = 1 + 5 * season * (1 + 0.3 * math.sin(i / 90)) + rng.gauss(0, 0.15)
        visits = 20_000 + 2_000 * ili + 10 * i + rng.gauss(0, 500)
        f.write(f"{(t0 + datetime.timedelta(weeks=i)).date()},{ili:.4f},{visits:.0f}\n")
EOF
# Time-LLM's settings for each kind of data: seq 512 and horizon 96 (weather, ETT);
# seq 104 and horizon 24 (ILI).
printf 'seq_len = 512\npred_len = 96\n' > "$data/hourly.toml"
printf 'seq_len = 104\npred_len = 24\n' > "$data/weekly.toml"

shoot() { # name data config
  local dir="$out/$1"
  mkdir -p "$dir"
  # A fresh HOME: no remembered settings or layout.
  HOME=$(mktemp -d) XDG_RUNTIME_DIR=$(mktemp -d) DISPLAY=:57 \
    timeout 900 "$bin" gui "$2" --config "$3" --screenshots "$dir"
  echo "wrote $dir: $(cd "$dir" && echo *.png)"
}
Xvfb :57 -screen 0 1400x900x24 >/dev/null 2>&1 & xvfb=$!
trap 'kill $xvfb 2>/dev/null || true; rm -rf "$data"' EXIT
sleep 1
# The pointer off the panes (Xvfb starts it mid-screen, where it hovered a plot's readout
# into the pictures).
if command -v xdotool >/dev/null; then DISPLAY=:57 xdotool mousemove 1399 899 || true; fi
shoot ten_minutes "$data/ten_minutes.csv" "$data/hourly.toml"
shoot etth1 sample_data/ETTh1.csv "$data/hourly.toml"
shoot weekly "$data/weekly.csv" "$data/weekly.toml"
if $docs; then
  cp "$out"/etth1/{dashboard,dataset,sweep,compare}.png docs/
  echo "copied ETTh1's pictures to docs/"
fi
