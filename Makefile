# wavebench — set-up, build, test and benchmark on a fresh Debian machine.
#
#   make run    build and open the app on a sample data set
#   make test   build and run every test
#
# Everything slow to make is cached outside the clone and recreated when missing:
# a Python venv with PyTorch (libtorch for tch) and PyWavelets, and cargo's target dir
# (`target` here is a link to it).

SHELL := /bin/bash
CACHE ?= $(HOME)/.cache/wavebench
VENV := $(CACHE)/venv
PYTHON := $(VENV)/bin/python
TORCH_VERSION := 2.13.0
VENV_STAMP := $(VENV)/.wavebench-torch-$(TORCH_VERSION)

export LIBTORCH_USE_PYTORCH := 1
export CARGO_TARGET_DIR := $(CACHE)/target
export PATH := $(VENV)/bin:$(PATH)

# System libraries for the app (X11/Wayland, Vulkan through Mesa's lavapipe for the
# headless snapshot tests, Xvfb for a real window without a display).
APT_PACKAGES := pkg-config libssl-dev libdbus-1-dev libx11-dev libxcursor-dev libxrandr-dev \
	libxi-dev libxkbcommon-dev libxkbcommon-x11-0 libwayland-dev libvulkan1 \
	mesa-vulkan-drivers libgl1-mesa-dri libegl1 xvfb xauth

# What only the app needs at run time: a file dialog. rfd asks the desktop portal and falls
# back to zenity, so a bare machine without a desktop still gets File > Open.
APT_RUN_PACKAGES := zenity

SAMPLE := sample_data/ETTh1.csv

.PHONY: all setup apt apt-run apt-install venv target-link build run test test-python wheel completions bench bench-app bench-python assets fixtures sample-data reference clean

all: build

setup: apt venv target-link

apt:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(APT_PACKAGES)"

apt-run:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(APT_RUN_PACKAGES)"

apt-install:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing system packages:" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "wavebench needs these system packages; run:"; \
	    echo "  sudo apt-get install -y --no-install-recommends" $$missing; exit 1; \
	  fi; \
	fi

venv: $(VENV_STAMP)

$(VENV_STAMP): scripts/requirements.txt
	@mkdir -p $(CACHE)
	@test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install -q --upgrade pip
	$(PYTHON) -m pip install -q torch==$(TORCH_VERSION) -r scripts/requirements.txt
	@touch $@

target-link:
	@mkdir -p $(CARGO_TARGET_DIR)
	@if [ ! -e target ] || [ -L target ]; then ln -sfn $(CARGO_TARGET_DIR) target; fi

build: setup
	cargo build --release
	@echo "built target/release/wavebench"

run: build apt-run
	./target/release/wavebench gui $(SAMPLE)

# One profile for every test (dev, with optimised dependencies): CLI tests run the
# binary cargo builds for them. The Python crate is tested through its wheel (pytest):
# an extension module has no Rust test binary.
test: setup
	cargo test --workspace --exclude wavebench-python --no-fail-fast
	@$(MAKE) --no-print-directory test-python

# The wheel in the dev profile, installed into the project venv, against the CLI's binary.
test-python: venv target-link
	VIRTUAL_ENV=$(VENV) maturin develop -q -m crates/python/Cargo.toml
	WAVEBENCH_BIN=$(CARGO_TARGET_DIR)/debug/wavebench $(PYTHON) -m pytest -q crates/python/tests

# One wheel (abi3, CPython >= 3.9) in target/wheels/: pip install target/wheels/wavebench-*.whl
wheel: venv target-link
	rm -f $(CARGO_TARGET_DIR)/wheels/wavebench-*.whl
	maturin build --release -q -m crates/python/Cargo.toml --out $(CARGO_TARGET_DIR)/wheels
	@ls $(CARGO_TARGET_DIR)/wheels/wavebench-*.whl

# Frame times of the real app driven headless (egui_kittest); see BENCHMARKS.md.
bench-app: setup
	cargo test --test app bench_frame_times -- --ignored --nocapture

# Per-call time of the wheel vs a plain PyTorch path at B=32, N=7, T=512 (BENCHMARKS.md).
bench-python: venv target-link
	VIRTUAL_ENV=$(VENV) maturin develop -q --release -m crates/python/Cargo.toml
	$(PYTHON) scripts/bench_python.py

# Shell completions and man pages, generated from the command-line definitions:
#   source target/completions/wavebench.bash;  man -l target/man/wavebench.1
completions: build
	@mkdir -p target/completions
	./target/release/wavebench completions bash > target/completions/wavebench.bash
	./target/release/wavebench completions zsh > target/completions/_wavebench
	./target/release/wavebench completions fish > target/completions/wavebench.fish
	./target/release/wavebench man target/man
	@echo "completions in target/completions/, man pages in target/man/"

bench: build
	$(PYTHON) scripts/bench_decompose.py sample_data/ETTh1.csv ./target/release/wavebench

# Regenerate the data the project derives from pywt (committed; rerun to check).
assets: venv
	$(PYTHON) scripts/gen_wavelets.py

fixtures: venv
	$(PYTHON) scripts/gen_fixtures.py
	$(PYTHON) scripts/ref_features.py
	$(PYTHON) scripts/gen_repr_fixture.py

sample-data: venv
	$(PYTHON) scripts/gen_sample_data.py
	$(PYTHON) scripts/gen_public_data.py

clean:
	cargo clean
