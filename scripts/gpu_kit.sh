#!/usr/bin/env bash
# Builds what scripts/gpu_check.sh runs on a GPU machine, into .gpu/ (ignored by git):
# a release wavebench linked against the libtorch of that machine's PyTorch, stripped and
# xz-compressed to travel, and the wheels (wavebench's, and pywavelets for Python 3.12).
#
# usage: scripts/gpu_kit.sh [TORCH_VERSION]   (default 2.11.0, the GPU machine's, 2026-11)
#
# Why a build of its own: the GPU machine has no Rust, and its PyTorch is not the 2.13 that
# tch 0.26 is made for. A binary built against 2.13 loads there (every symbol resolves) but
# fails at the first tensor ("incoherent element sizes", then SIGSEGV): the two versions
# number their dtypes differently. So the binary is compiled against the GPU machine's
# headers. tch's generated wrapper names a few operators that older versions lack (15 for
# 2.11); a copy of torch-sys with those bodies replaced by a throw is patched in for this
# build only (`cargo --config patch…`; Cargo.lock is put back afterwards). wavebench calls
# none of them.
set -euo pipefail
V=${1:-2.11.0}
ROOT=$(git rev-parse --show-toplevel)
cd "$ROOT"
CACHE=${WAVEBENCH_CACHE:-$HOME/.cache/wavebench}
PY=$CACHE/venv/bin/python
KIT=$CACHE/gpu-kit
mkdir -p "$KIT" .gpu
grep -qsx '/.gpu/' .git/info/exclude || echo '/.gpu/' >>.git/info/exclude

# 1. libtorch V, headers and libraries, from PyPI's wheel.
LT=$KIT/torch-$V
if [[ ! -d $LT/torch/include ]]; then
  "$PY" -m pip download -q --no-deps "torch==$V" -d "$KIT/dl"
  unzip -q -o "$KIT"/dl/torch-"$V"-*.whl 'torch/lib/*' 'torch/include/*' -d "$LT"
fi
# libtorch_cuda finds CUDA's libraries beside it (RPATH $ORIGIN/../../nvidia/…): for
# linking, the venv's serve (same CUDA major).
SITE=$("$PY" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
ln -sfn "$SITE/nvidia" "$LT/nvidia"
export LIBTORCH=$LT/torch LIBTORCH_BYPASS_VERSION_CHECK=1
unset LIBTORCH_USE_PYTORCH

# 2. torch-sys without the operators V lacks: compile its wrapper alone, and replace the
# body of each function whose call does not compile.
SRC=$(ls -d "$HOME"/.cargo/registry/src/*/torch-sys-0.26.0 | head -1)
PATCHED=$KIT/torch-sys-$V
if [[ ! -f $PATCHED/.patched ]]; then
  rm -rf "$PATCHED"
  cp -r "$SRC" "$PATCHED"
  GEN=$PATCHED/libtch/torch_api_generated.cpp
  c++ -std=c++17 -fsyntax-only -w -D_GLIBCXX_USE_CXX11_ABI=1 -I"$LIBTORCH/include" \
    -I"$LIBTORCH/include/torch/csrc/api/include" "$GEN" 2>&1 |
    grep -o 'torch_api_generated.cpp:[0-9]*:[0-9]*: error' | cut -d: -f2 | sort -n -u \
    >"$KIT/missing-$V" || true
  python3 - "$GEN" "$KIT/missing-$V" <<'EOF'
import sys
path, missing = sys.argv[1], sys.argv[2]
lines = open(path).read().split("\n")
bad = sorted({int(x) for x in open(missing).read().split()}, reverse=True)
for n in bad:
    i = n - 1
    if "torch::" not in lines[i]:
        sys.exit(f"line {n} is not an operator call: {lines[i]!r}")
    j = i
    while lines[j].strip() != ")":  # the end of PROTECT( ... )
        j += 1
    lines[i:j] = ['    throw std::runtime_error("not in this libtorch");']
open(path, "w").write("\n".join(lines))
print(f"torch-sys: {len(bad)} operators absent from libtorch stubbed out")
EOF
  touch "$PATCHED/.patched"
fi

# 3. The build, in a target dir of its own (the main one keeps its 2.13 build; its
# dependencies are copied once to start from).
export CARGO_TARGET_DIR=$CACHE/target-gpu-kit
if [[ ! -d $CARGO_TARGET_DIR/release ]]; then
  mkdir -p "$CARGO_TARGET_DIR"
  [[ -d $CACHE/target/release ]] && cp -a "$CACHE/target/release" "$CARGO_TARGET_DIR/"
fi
cp Cargo.lock "$KIT/Cargo.lock.keep"
trap 'cp "$KIT/Cargo.lock.keep" Cargo.lock' EXIT
PATH=$CACHE/venv/bin:$PATH cargo build --release --bin wavebench \
  --config "patch.crates-io.torch-sys.path=\"$PATCHED\""
cp "$KIT/Cargo.lock.keep" Cargo.lock # before any other cargo run resolves against the patch

# 4. The kit.
strip -o "$KIT/wavebench" "$CARGO_TARGET_DIR/release/wavebench"
xz -T0 -6 -c "$KIT/wavebench" >.gpu/wavebench.xz
rm -f .gpu/*.whl
make -s wheel >/dev/null
cp "$CACHE"/target/wheels/wavebench-*.whl .gpu/
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .gpu pywavelets==1.9.0
ls -la .gpu
echo "kit ready: run scripts/gpu_check.sh .gpu \$OUT on the GPU machine, with .gpu carried"
