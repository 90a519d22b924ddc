#!/usr/bin/env bash
# Every check that needs a GPU, as one short run on a machine that has one (BENCHMARKS.md,
# "On a GPU"): the torch-cuda engine against the native one through the CLI, the pipeline's
# speed per engine on ETTh1 and on a larger generated file (BIG_ROWS rows), the sweep's
# wall time on the machine's cores, the Python suite (its CUDA test
# included) and the wheel against plain PyTorch on the GPU.
#
# usage: scripts/gpu_check.sh KIT OUT [ENGINE]
#   KIT holds wavebench.xz (a stripped release binary, xz-compressed to travel) or wavebench,
#       and the wheels to install (wavebench-*.whl; pywavelets for bench_python.py):
#       scripts/gpu_kit.sh builds it into .gpu/.
#   OUT receives the reports. ENGINE is torch-cuda; torch-cpu dry-runs the script anywhere.
# libtorch: python3's torch, which the binary must have been built against (gpu_kit.sh
# says why).
set -uo pipefail
KIT=$(realpath "$1")
OUT=$(realpath -m "$2")
ENGINE=${3:-torch-cuda}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
status=0
fail() { echo "FAILED: $*"; status=1; }
step() { echo; echo "== $(date +%T) $*"; }

BIN=/tmp/wavebench-gpu
if [[ -f $KIT/wavebench.xz ]]; then xz -dc "$KIT/wavebench.xz" >"$BIN"; else cp "$KIT/wavebench" "$BIN"; fi
chmod +x "$BIN"
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
export LD_LIBRARY_PATH=$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if compgen -G "$KIT/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$KIT"/*.whl || fail "wheel install"
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi

step machine
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())'
  lscpu | grep -E "^Model name|^CPU\(s\)"
  "$BIN" --version
} | tee "$OUT/machine.txt"

step "engine agreement: $ENGINE against native (7 wavelet/level/mode, every 16th ETTh1 window)"
timeout 240 python3 scripts/engine_agreement.py "$BIN" sample_data/ETTh1.csv --engine "$ENGINE" \
  --out /tmp/agreement --stride 16 || fail "engine agreement"
cp /tmp/agreement/agreement.json "$OUT/" 2>/dev/null

step "--lags peaks: $ENGINE's peaks against native's (every 8th ETTh1 window of 512)"
for e in native "$ENGINE"; do
  timeout 60 "$BIN" prompts sample_data/ETTh1.csv --seq-len 512 --stride 8 --lags peaks \
    --engine "$e" -q -o "/tmp/peaks-$e.jsonl" || fail "peaks on $e"
done
python3 - "$ENGINE" <<'EOF' || fail "peaks agreement"
import json, sys
a = [json.loads(l) for l in open("/tmp/peaks-native.jsonl")]
b = [json.loads(l) for l in open(f"/tmp/peaks-{sys.argv[1]}.jsonl")]
same = sum(x["prompt"] == y["prompt"] and x["features"]["lags"] == y["features"]["lags"]
           for x, y in zip(a, b))
print(f"{same} of {len(a)} prompts and peak lists identical ({len(b)} from {sys.argv[1]})")
sys.exit(0 if same == len(a) == len(b) else 1)
EOF

step "per-series prompts over every ETTh1 window (118,363), per engine (baseline and bf16 inputs)"
timeout 150 "$BIN" bench sample_data/ETTh1.csv --seq-len 512 --engines "native,$ENGINE" \
  --variants baseline,bf16 --repeat 5 -o "$OUT/bench_series.md" && cat "$OUT/bench_series.md" \
  || fail "bench series"

step "batch prompts (the seed's workload: 529 batches of 32 windows), per engine"
timeout 90 "$BIN" bench sample_data/ETTh1.csv --seq-len 512 --aggregate batch --batch-size 32 \
  --engines "native,$ENGINE" --repeat 5 -o "$OUT/bench_batch.md" && cat "$OUT/bench_batch.md" \
  || fail "bench batch"

rows=${BIG_ROWS:-200000}
step "per-series prompts over $rows generated rows (7 channels, every window), per engine"
python3 scripts/gen_big_csv.py /tmp/big.csv "$rows" >/dev/null
timeout 150 "$BIN" bench /tmp/big.csv --seq-len 512 --engines "native,$ENGINE" --repeat 3 \
  -o "$OUT/bench_big.md" && cat "$OUT/bench_big.md" || fail "bench big"

step "the sweep with issue 43's protocol (every wavelet x level, B=99, R=199), the machine's cores"
TIMEFORMAT='%R s wall, %U s user'
time timeout 180 "$BIN" sweep sample_data/ETTh1.csv \
  --seq-len 512 -o "$OUT/sweep.md" -q || fail "sweep"

step "Python suite (the wheel; its CUDA test runs here)"
WAVEBENCH_BIN=$BIN timeout 150 python3 -m pytest -q -rs crates/python/tests -p no:cacheprovider \
  || fail "pytest"

step "the wheel against plain PyTorch, B=32 N=7 T=512"
device=cpu
[[ $ENGINE == torch-cuda ]] && device=cuda
timeout 90 python3 scripts/bench_python.py --device "$device" --rounds 5 --repeat 30 || fail "bench_python"

step "done: status $status"
exit $status
