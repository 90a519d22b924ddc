"""The wheel against the CLI: the same windows give byte-identical prompts, the feature
dicts have the seed's keys and types, and bad input fails as the seed's did.

Run by `make test` (after `maturin develop`): WAVEBENCH_BIN names the CLI binary.
"""
import concurrent.futures
import copy
import json
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import torch

import wavebench

ROOT = pathlib.Path(__file__).resolve().parents[3]
ETTH1 = ROOT / "sample_data" / "ETTh1.csv"
SAMPLE = ROOT / "sample_data" / "synthetic.csv"
BIN = os.environ.get("WAVEBENCH_BIN") or str(
    pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "wavebench"
)
DATA = [ETTH1, SAMPLE]


def batch_of(csv, b, t, dtype=np.float32):
    """The first b*t rows as x_enc (B, N, T): sample b is rows b*t..(b+1)*t, every channel."""
    df = pd.read_csv(csv)
    values = df.iloc[: b * t, 1:].to_numpy(dtype=np.float64)
    return values.reshape(b, t, -1).transpose(0, 2, 1).astype(dtype), list(df.columns[1:])


def cli(csv, *args):
    """The CLI's JSONL records for the same windows (stride T, no normalisation: x_enc
    arrives normalised by the model)."""
    out = subprocess.run([BIN, "prompts", str(csv), "--normalize", "none", "--quiet", "-o", "-",
                          *args], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("csv", DATA, ids=lambda p: p.name)
def test_timellm_prompts_equal_the_cli(csv):
    b, t = 8, 96
    x, columns = batch_of(csv, b, t)
    got = wavebench.timellm_prompts(torch.from_numpy(x), "Hourly load.", 24)
    want = cli(csv, "--template", "timellm", "--description", "Hourly load.", "--pred-len", "24",
               "--seq-len", str(t), "--stride", str(t), "--rows", f"0..{b * t}")
    assert len(got) == len(want) == b * len(columns)
    assert [r["column"] for r in want[: len(columns)]] == columns  # sample-major, channel-minor
    assert got == [r["prompt"] for r in want]


@pytest.mark.parametrize("csv", DATA, ids=lambda p: p.name)
@pytest.mark.parametrize("compression", ["minimal", "balanced", "detailed"])
def test_generator_prompts_equal_the_cli(csv, compression):
    b, t = 4, 128
    x, _ = batch_of(csv, 3 * b, t)
    want = cli(csv, "--template", f"dwt-{compression}", "--aggregate", "batch", "--batch-size", str(b),
               "--description", "d", "--pred-len", "96", "--seq-len", str(t), "--stride", str(t),
               "--rows", f"0..{3 * b * t}")
    assert len(want) == 3
    gen = wavebench.DWTPromptGenerator(wavelet="db4", level=3, compression_level=compression)
    for k, record in enumerate(want):
        feats = gen(torch.from_numpy(x[k * b:(k + 1) * b]))
        f = record["features"]
        base_info = dict(min=f["min"], max=f["max"], median=f["median"], lags=f["lags"],
                         description="d", seq_len=t, pred_len=96)
        assert gen.build_prompt_text(feats, base_info) == record["prompt"]
        # The dict's numbers are the CLI's features.
        np.testing.assert_allclose(feats["energy_ratio"], f["energy_ratio"], rtol=1e-6)
        np.testing.assert_allclose(feats["frequency_stds"], f["band_stds"], rtol=1e-6)
        assert feats["difficulty"] == f["difficulty"] and feats["freq_pattern"] == f["freq_pattern"]


def test_feature_dict_has_the_seeds_keys_and_types():
    x = torch.randn(4, 3, 256, generator=torch.Generator().manual_seed(1))
    feats = wavebench.DWTPromptGenerator(level=3)(x)
    arrays = {"energy_ratio": np.float32, "trends": np.float32, "frequency_stds": np.float32,
              "trends_sign": np.int32}
    for k, dtype in arrays.items():
        assert isinstance(feats[k], np.ndarray) and feats[k].dtype == dtype and feats[k].shape == (4,), k
    for k in ("energy_entropy", "dominant_energy", "trend_consistency", "signal_std", "noise_std",
              "snr_db", "volatility_ratio"):
        assert isinstance(feats[k], float), k
    assert isinstance(feats["dominant_band"], int)
    for k in ("freq_pattern", "trend_desc", "stability_desc", "signal_quality"):
        assert isinstance(feats[k], str) and feats[k], k
    assert feats["difficulty"] in ("low", "moderate", "high")
    assert feats["signal_std"] == pytest.approx(float(feats["frequency_stds"][0]), rel=1e-6)
    assert feats["noise_std"] == pytest.approx(float(feats["frequency_stds"][-1]), rel=1e-6)


def test_lags_rule_picks_which_top_lags_features_hold():
    # Hourly-like series: a daily cycle and a slow wave (stats::lags's own test signal).
    t = np.arange(512.0)
    one = np.sin(2 * np.pi * t / 24) + 1.5 * np.sin(2 * np.pi * t / 512)
    x = np.stack([one, 2 * one + 1]).reshape(1, 2, 512)
    timellm = wavebench.features(x)
    clean = wavebench.features(x, lags="clean")
    peaks = wavebench.features(x, lags="peaks")
    assert list(timellm["lags"][0][:3]) == [0, 1, 511]
    np.testing.assert_array_equal(clean["lags"], clean["lags_clean"])
    # The peaks are the days (numpy's autocorrelation of the same signal gives the same).
    assert [list(r) for r in peaks["lags"]] == [[24, 48, 72, 96, 121]] * 2
    np.testing.assert_array_equal(peaks["lags_clean"], timellm["lags_clean"])
    with pytest.raises(ValueError, match="lags: unknown lag rule 'days'"):
        wavebench.features(x, lags="days")


def test_features_per_series_sample_and_batch():
    x = np.random.default_rng(2).standard_normal((5, 2, 200))
    series = wavebench.features(x, wavelet="sym4", level=2)
    assert series["energy_ratio"].shape == (10, 3) and series["lags"].shape == (10, 5)
    # Clean lags: 1..=T/2 only (Time-LLM's list starts at lag 0).
    assert series["lags_clean"].shape == (10, 5)
    assert ((series["lags_clean"] >= 1) & (series["lags_clean"] <= 100)).all()
    assert (series["lags"][:, 0] == 0).all()
    assert list(series["sample"]) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert list(series["channel"]) == [0, 1] * 5
    assert len(series["difficulty"]) == 10
    np.testing.assert_allclose(series["energy_ratio"].sum(axis=1), 1.0, rtol=1e-9)
    np.testing.assert_allclose(series["min"], x.min(axis=2).ravel())
    assert wavebench.features(x, aggregate="sample")["energy_ratio"].shape == (5, 4)
    assert wavebench.features(x, aggregate="batch")["energy_ratio"].shape == (1, 4)
    with pytest.raises(ValueError, match="aggregation"):
        wavebench.features(x, aggregate="window")


def test_numpy_torch_strides_and_precision_agree():
    x = np.random.default_rng(3).standard_normal((6, 4, 160)).astype(np.float32)
    gen = wavebench.DWTPromptGenerator()
    a = gen(x)
    b = gen(torch.from_numpy(x))
    # A non-contiguous tensor with the same values.
    t = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 2, 1))).transpose(1, 2)
    assert not t.is_contiguous()
    c = gen(t)
    for other in (b, c):
        for k, v in a.items():
            np.testing.assert_array_equal(v, other[k], err_msg=k)
    d = gen(torch.from_numpy(x.astype(np.float64)))  # computed in f64: close, not equal
    np.testing.assert_allclose(d["energy_ratio"], a["energy_ratio"], rtol=1e-5)
    e = gen(torch.from_numpy(x).to(torch.bfloat16))  # half precisions are widened
    assert e["energy_ratio"].shape == (4,)


def test_the_seeds_input_checks():
    gen = wavebench.DWTPromptGenerator(level=3)
    with pytest.raises(TypeError):
        gen([[[1.0, 2.0]]])
    with pytest.raises(ValueError, match="3-D"):
        gen(torch.zeros(4, 64))
    x = torch.randn(2, 2, 64)
    x[1, 0, 5] = float("nan")
    with pytest.raises(ValueError, match=r"x\[1, 0, 5\] is NaN"):
        gen(x)
    x[1, 0, 5] = float("inf")
    with pytest.raises(ValueError, match="finite"):
        gen(x)
    with pytest.raises(RuntimeError, match="too short"):
        wavebench.DWTPromptGenerator(level=4)(torch.randn(2, 2, 15))
    with pytest.raises(ValueError, match="maximum level"):  # docs/transform.md#levels: 2^3 <= 16, but db4 needs more
        gen(torch.randn(2, 2, 16))
    with pytest.raises(ValueError, match="did you mean"):
        wavebench.DWTPromptGenerator(wavelet="db44")
    with pytest.raises(ValueError, match="level"):
        wavebench.DWTPromptGenerator(level=0)
    with pytest.raises(ValueError, match="compression_level"):
        wavebench.DWTPromptGenerator(compression_level="tiny")
    with pytest.raises(ValueError, match="adaptive"):
        wavebench.DWTPromptGenerator(use_adaptive_thresholds=True)
    with pytest.raises(ValueError, match="top_k"):
        wavebench.timellm_prompts(torch.randn(2, 2, 64), "d", 8, top_k=3)
    with pytest.raises(ValueError, match="base_info lacks"):
        gen.build_prompt_text(gen(torch.randn(2, 2, 64)), {"min": 0.0})


def test_build_prompt_text_reads_values_of_any_numeric_type():
    # base_info as a training loop builds it from tensors (Time-LLM's statistics and
    # lags), as numpy scalars, or as plain Python values: one prompt.
    gen = wavebench.DWTPromptGenerator(compression_level="detailed")
    feats = gen(torch.randn(4, 3, 128, generator=torch.Generator().manual_seed(1)))
    plain = dict(min=-1.25, max=2.5, median=0.125, lags=[0, 1, 127, 2, 126],
                 description="d", seq_len=128, pred_len=24)
    want = gen.build_prompt_text(feats, plain)
    assert "Value range: [-1.25, 2.50]" in want and "are [0, 1, 127, 2, 126]" in want, want
    as_tensors = dict(plain, min=torch.tensor(-1.25), max=torch.tensor(2.5, dtype=torch.float64),
                      median=np.float32(0.125), lags=torch.tensor([0, 1, 127, 2, 126]),
                      seq_len=np.int64(128), pred_len=torch.tensor(24))
    assert gen.build_prompt_text(feats, as_tensors) == want
    as_lists = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in feats.items()}
    assert gen.build_prompt_text(as_lists, dict(plain, lags=np.array(plain["lags"]))) == want
    with pytest.raises(ValueError, match=r"base_info\['lags'\]"):
        gen.build_prompt_text(feats, dict(plain, lags=["a"]))
    with pytest.raises(ValueError, match=r"base_info\['lags'\]: .*-1 is out of range"):
        gen.build_prompt_text(feats, dict(plain, lags=np.array([-1, 2, 3, 4, 5])))
    with pytest.raises(ValueError, match=r"features lacks 'trend_desc'"):
        gen.build_prompt_text({k: v for k, v in feats.items() if k != "trend_desc"}, plain)


def test_the_generator_is_a_module_inside_a_model():
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.prompts = wavebench.DWTPromptGenerator()

    m = Model().to("cpu")
    assert isinstance(m.prompts, torch.nn.Module)
    assert "wavelet='db4'" in repr(m)
    # A model is deep-copied (EMA, checkpoints) and pickled: the generator goes with it.
    x = torch.randn(4, 3, 128, generator=torch.Generator().manual_seed(2))
    want = m.prompts(x)
    for other in (copy.deepcopy(m).prompts, pickle.loads(pickle.dumps(m.prompts))):
        got = other(x)
        assert got.keys() == want.keys()
        for k, v in want.items():
            np.testing.assert_array_equal(got[k], v, err_msg=k)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (scripts/gpu_check.sh)")
def test_a_model_on_the_gpu_gets_the_prompts_of_its_host_copy():
    # Inside a training loop x_enc lives on the GPU, in the model's precision.
    x = torch.randn(8, 7, 512, generator=torch.Generator().manual_seed(5))
    gen = wavebench.DWTPromptGenerator().to("cuda")
    want = gen(x)
    for on_gpu in (x.cuda(), x.cuda().transpose(1, 2).contiguous().transpose(1, 2), x.cuda().requires_grad_()):
        got = gen(on_gpu)
        assert got.keys() == want.keys()
        for k, v in want.items():
            np.testing.assert_array_equal(got[k], v, err_msg=k)
    assert wavebench.timellm_prompts(x.cuda(), "d", 96) == wavebench.timellm_prompts(x, "d", 96)
    half = gen(x.cuda().half())  # widened to float32 after the one host copy
    np.testing.assert_array_equal(half["energy_ratio"], gen(x.half())["energy_ratio"])


def test_calls_from_many_threads_agree():
    xs = [np.random.default_rng(s).standard_normal((8, 7, 512)).astype(np.float32) for s in range(8)]
    sequential = [wavebench.timellm_prompts(x, "d", 96) for x in xs]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        parallel = list(pool.map(lambda x: wavebench.timellm_prompts(x, "d", 96), xs))
    assert parallel == sequential
    assert len(sequential[0]) == 56
    # One generator, batches of two lengths from many threads: its plan follows the length.
    gen = wavebench.DWTPromptGenerator()
    mixed = [x[..., : 256 if i % 2 else 512] for i, x in enumerate(xs)]
    one_by_one = [gen(x)["energy_ratio"] for x in mixed]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda x: gen(x)["energy_ratio"], mixed * 4))
    assert len(together) == 4 * len(one_by_one)
    for i, got in enumerate(together):
        np.testing.assert_array_equal(got, one_by_one[i % len(mixed)])


def test_an_swt_time_style_loop_over_all_etth1_windows():
    """Batches of 32 windows (stride 96) through the generator inside a model: every prompt
    byte-identical to the CLI's batch prompts for the same windows."""
    t, stride, b = 512, 96, 32
    values = pd.read_csv(ETTH1).iloc[:, 1:].to_numpy(np.float64)
    starts = list(range(0, len(values) - t + 1, stride))
    want = cli(ETTH1, "--template", "dwt-balanced", "--aggregate", "batch", "--batch-size", str(b),
               "--description", "ETTh1", "--pred-len", "96", "--seq-len", str(t), "--stride", str(stride))
    assert len(want) == (len(starts) + b - 1) // b
    model = torch.nn.Sequential()
    model.add_module("prompts", wavebench.DWTPromptGenerator())
    gen = model.to("cpu").prompts
    for k, record in enumerate(want):
        x_enc = torch.from_numpy(np.stack([values[s:s + t].T for s in starts[k * b:(k + 1) * b]])
                                 .astype(np.float32))
        f = record["features"]
        base_info = dict(min=f["min"], max=f["max"], median=f["median"], lags=f["lags"],
                         description="ETTh1", seq_len=t, pred_len=96)
        assert gen.build_prompt_text(gen(x_enc), base_info) == record["prompt"], k


def test_parameters_are_checked_by_name_and_inputs_never_narrowed_in_silence():
    """level is an int (not a bool), each error names its parameter; a big-endian float64
    array is computed in float64 (as the native one is), not narrowed; complex input is a
    TypeError rather than its real part."""
    x = np.random.default_rng(7).standard_normal((2, 3, 64))
    for bad in (True, 2.0, "3"):
        with pytest.raises(TypeError, match="level must be an int"):
            wavebench.features(x, level=bad)
        with pytest.raises(TypeError, match="level must be an int"):
            wavebench.DWTPromptGenerator(level=bad)
    with pytest.raises(ValueError, match="level must be at least 1, got -1"):
        wavebench.features(x, level=-1)
    native = wavebench.features(x, level=2)
    swapped = wavebench.features(x.astype(">f8"), level=2)
    assert swapped.keys() == native.keys()
    for k, v in native.items():
        np.testing.assert_array_equal(swapped[k], v, err_msg=k)
    narrowed = wavebench.features(x.astype(np.float32), level=2)
    assert not np.array_equal(narrowed["band_stds"], native["band_stds"])
    with pytest.raises(TypeError, match="complex"):
        wavebench.features(x.astype(np.complex128), level=2)
    with pytest.raises(TypeError, match="complex"):
        wavebench.DWTPromptGenerator()(torch.from_numpy(x).to(torch.complex64))


def test_a_call_larger_than_memory_raises_memory_error():
    """A broadcast view of 2^34 samples (2^30 series) costs nothing to make; its features
    would not fit in this machine's memory: MemoryError, and the interpreter lives on."""
    huge = np.broadcast_to(np.zeros(16), (2 ** 30, 1, 16))
    with pytest.raises(MemoryError, match="pass fewer series per call"):
        wavebench.features(huge, level=1)
    with pytest.raises(MemoryError, match="x_enc of shape"):
        wavebench.DWTPromptGenerator(level=1)(huge)
    assert wavebench.features(np.zeros((1, 1, 16)), level=1)["energy_ratio"].shape[0] == 1


def test_constant_series_are_flagged_and_say_so():
    x = np.random.default_rng(3).standard_normal((2, 2, 64))
    x[1, 0, :] = 4.25  # sample 1, channel 0: constant
    f = wavebench.features(x, wavelet="db2", level=2)
    assert f["degenerate"] == [None, None, "constant", None]
    assert f["signal_quality"][2] == "constant input" and f["signal_quality"][0] != "constant input"
    assert list(f["lags"][2]) == [-1] * 5 and (f["lags"][[0, 1, 3]] >= 0).all()
    seed = wavebench.features(x, wavelet="db2", level=2, seed_compatible=True)
    assert seed["degenerate"] == [None] * 4 and seed["signal_quality"][2] != "constant input"
    np.testing.assert_array_equal(seed["energy_ratio"], f["energy_ratio"])
    # A sample is constant only when all of its channels are.
    assert wavebench.features(x, wavelet="db2", level=2, aggregate="sample")["degenerate"] == [None, None]
    prompts = wavebench.timellm_prompts(x, "d", 8)
    assert prompts[2].endswith("median value 4.25, the input is constant<|<end_prompt>|>")
    assert "top 5 lags" in prompts[0] and "top 5 lags" in wavebench.timellm_prompts(x, "d", 8, seed_compatible=True)[2]


def test_a_sweep_rows_configuration_gives_its_prompts_in_the_loop(tmp_path):
    """`sweep --write-config` → `load_config` → `prompts`: the CLI's prompts of that
    configuration, byte for byte, on the same windows."""
    best = tmp_path / "best.toml"
    subprocess.run([BIN, "sweep", str(SAMPLE), "--seq-len", "64", "--stride", "16",
                    "--pred-len", "16", "--wavelets", "db2,sym3", "--levels", "1,2",
                    "--template", "dwt-balanced,dwt-detailed", "--null-draws", "9",
                    "--bootstrap", "9", "--quiet", "-o", str(tmp_path / "s.md"),
                    "--write-config", str(best), "--pick", "2"],
                   check=True, capture_output=True)
    cfg = wavebench.load_config(best)
    assert set(cfg) >= {"template", "wavelet", "level", "mode", "pred_len"}
    b, t = 6, 64
    x, columns = batch_of(SAMPLE, b, t, dtype=np.float64)
    want = cli(SAMPLE, "--config", str(best), "--stride", str(t), "--rows", f"0..{b * t}")
    got = wavebench.prompts(torch.from_numpy(x), **cfg)
    assert len(got) == len(want) == b * len(columns)
    assert got == [r["prompt"] for r in want]
    with pytest.raises(ValueError, match="not a built-in"):
        (tmp_path / "own.toml").write_text('template = "mine.j2"\n')
        wavebench.load_config(tmp_path / "own.toml")


def test_the_training_loop_example_runs(tmp_path):
    config = tmp_path / "best.toml"
    config.write_text('wavelet = "sym3"\nlevel = 2\nseq_len = 96\npred_len = 24\n'
                      'template = "dwt-balanced"\ndescription = "Synthetic."\n')
    example = ROOT / "crates" / "python" / "examples" / "timellm_loop.py"
    out = subprocess.run([sys.executable, str(example), str(SAMPLE), str(config)], check=True,
                         capture_output=True, text=True).stdout
    lines = out.splitlines()
    n = len(pd.read_csv(SAMPLE).columns) - 1
    assert lines[:3] == [f"batch {k}: {32 * n} prompts for x_enc (32, {n}, 96)" for k in range(3)]
    assert "Dataset description: Synthetic." in out
