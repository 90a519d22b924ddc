"""Per-call time of the wheel against a plain PyTorch implementation of the same per-batch
path (make bench-python; results in BENCHMARKS.md).

The PyTorch path is written from docs/features.md the way the seed does it, without ptwt:
the DWT as reflect padding + conv1d(stride 2) per level, features from tensor reductions,
descriptions in Python after `.item()`. It is checked against wavebench's numbers first, so
both compute the same thing. Both run in this process on the CPU, at B=32, N=7, T=512.

usage: python scripts/bench_python.py [--repeat R] [--rounds K] [--warmup-ms MS] [--device cpu|cuda]
                                      [--interleave | --after]

Times are medians over rounds of alternating blocks (see `per_call`); the speed-up is the
median of the rounds' ratios.
"""
import argparse
import math
import statistics
import time

import numpy as np
import pywt
import torch
import torch.nn.functional as F

import wavebench

BANDS_PATTERN = ["trend", "seasonal", "fluctuation", "noise"]
BANDS_TREND = ["long-term", "seasonal", "medium-term", "short-term"]


class TorchPromptPath:
    """The seed's per-batch path in plain PyTorch: features of all B*N series together."""

    def __init__(self, wavelet="db4", level=3, device="cpu"):
        w = pywt.Wavelet(wavelet)
        self.level = level
        self.L = w.dec_len
        # conv1d correlates: flip the decomposition filters to convolve as pywt does.
        lo = torch.tensor(w.dec_lo[::-1], dtype=torch.float32, device=device)
        hi = torch.tensor(w.dec_hi[::-1], dtype=torch.float32, device=device)
        self.filters = torch.stack([lo, hi]).unsqueeze(1)  # (2, 1, L)

    def wavedec(self, x):
        """pywt.wavedec(x, mode='reflect') for rows of x (S, T): [cA_n, cD_n, ..., cD_1]."""
        coeffs = []
        a = x.unsqueeze(1)
        for _ in range(self.level):
            n = a.shape[-1]
            ext = F.pad(a, (self.L - 1, self.L - 1), mode="reflect")
            # pywt keeps the odd outputs of the full convolution of the extended signal.
            y = F.conv1d(ext[..., 1:], self.filters, stride=2)[..., : (n + self.L - 1) // 2]
            a, d = y[:, :1], y[:, 1:]
            coeffs.append(d.squeeze(1))
        coeffs.append(a.squeeze(1))
        return coeffs[::-1]

    def features(self, x_enc):
        b, n, t = x_enc.shape
        coeffs = self.wavedec(x_enc.reshape(b * n, t).float())
        energies = torch.stack([(c * c).sum(dim=1) for c in coeffs], dim=1)  # (S, bands)
        total = energies.sum(dim=1, keepdim=True)
        ratios = torch.where(total == 0, torch.full_like(energies, 1.0 / energies.shape[1]),
                             energies / total.clamp_min(1e-10))
        p = ratios.clamp_min(1e-10)
        entropy = -(p * p.log()).sum(dim=1)
        mean_ratio = ratios.mean(dim=0)
        counts = torch.bincount(ratios.argmax(dim=1), minlength=len(coeffs))
        dominant = int(torch.argmax(counts).item())
        dominant_energy = float(mean_ratio[dominant].item())
        trends = torch.stack([(c[:, -1] - c[:, 0]).sum() / (c.shape[0] * (c.shape[1] - 1)) for c in coeffs])
        stds = torch.stack([c.flatten().std() for c in coeffs])
        signs = torch.sign(trends).to(torch.int32)
        s0 = int(signs[0].item())
        consistency = 0.5 if s0 == 0 else float((signs == s0).float().mean().item())
        std_first, std_last = float(stds[0].item()), float(stds[-1].item())
        if std_last == 0:
            snr = 60.0 if std_first > 0 else 0.0
        else:
            snr = max(-60.0, min(60.0, 10 * math.log10(max(std_first ** 2 / std_last ** 2, 1e-10))))
        volatility = std_last / (std_first + 1e-10)
        mean_entropy = float(entropy.mean().item())
        nbands = len(coeffs)
        mid = stds[1:nbands - 1]
        strong_mid = mid.numel() > 0 and float(mid.mean()) > std_first and float(mid.mean()) > std_last
        norm_entropy = mean_entropy / math.log(nbands)
        score = (min(max(40 * (1 - consistency), 0), 40) + 35 * min(max(norm_entropy, 0), 1)
                 + 25 / (1 + math.exp((snr - 10) / 5)))
        base = ("single-scale dominant" if mean_entropy < 0.5 else
                "dual-scale pattern" if mean_entropy < 1.0 else "multi-scale complex")
        freq = f"{base} ({BANDS_PATTERN[dominant] if dominant < 4 else f'band{dominant}'})" \
            if dominant_energy > 0.7 else base
        sl = signs.tolist()
        direction = lambda s: "upward" if s > 0 else "downward"  # noqa: E731
        if consistency == 1.0:
            trend_desc = f"consistent {direction(s0)}"
        elif consistency >= 0.75:
            k = next((i for i, s in enumerate(sl) if s != s0), 0)
            trend_desc = f"mostly {direction(s0)}, except {BANDS_TREND[k] if k < 4 else f'scale{k}'}"
        else:
            trend_desc = f"mixed ({sum(1 for s in sl if s > 0)}/{len(sl)} scales upward)"
        quality = "high SNR (clean)" if snr > 20 else "moderate SNR" if snr > 10 else "low SNR (noisy)"
        stab = ("stable trend with high short-term volatility" if volatility > 5 else
                "moderate volatility across scales" if volatility > 2 else
                "balanced multi-scale variations" if volatility > 0.5 else
                "trend-dominated with low noise")
        if strong_mid:
            stab += " (strong mid-frequency components)"
        return {
            "energy_ratio": mean_ratio.cpu().numpy(), "energy_entropy": mean_entropy,
            "dominant_band": dominant, "dominant_energy": dominant_energy, "freq_pattern": freq,
            "trends": trends.cpu().numpy(), "trends_sign": signs.cpu().numpy(),
            "trend_consistency": consistency, "trend_desc": trend_desc,
            "frequency_stds": stds.cpu().numpy(), "signal_std": std_first, "noise_std": std_last,
            "snr_db": snr, "volatility_ratio": volatility, "stability_desc": stab,
            "signal_quality": quality,
            "difficulty": "low" if score < 15 else "moderate" if score < 30 else "high",
        }

    def prompt(self, f, base_info):
        # dwt-balanced, as the seed formats it.
        diff = "" if f["difficulty"] == "moderate" else f", forecast difficulty: {f['difficulty']}"
        return (f"<|start_prompt|>Dataset description: {base_info['description']}\n"
                f"Task description: forecast the next {base_info['pred_len']} steps given the previous "
                f"{base_info['seq_len']} steps information; \n"
                f"Input statistics: range [{base_info['min']:.2f}, {base_info['max']:.2f}], "
                f"median {base_info['median']:.2f}\n"
                f"Pattern analysis: {f['freq_pattern']}, trend is {f['trend_desc']}, "
                f"signal quality is {f['signal_quality']}{diff}\n"
                f"Dominant periodicities: {list(base_info['lags'][:3])}<|<end_prompt>|>")

    def timellm_prompts(self, x_enc, description, pred_len, top_k=5):
        """Time-LLM's loop: statistics with torch, lags from an FFT autocorrelation."""
        b, n, t = x_enc.shape
        x = x_enc.reshape(b * n, t).float()
        mins, maxs = x.min(dim=1).values, x.max(dim=1).values
        medians = x.median(dim=1).values
        trends = x[:, -1] - x[:, 0]
        q = torch.fft.rfft(x, dim=-1)
        corr = torch.fft.irfft(q * torch.conj(q), dim=-1)
        lags = torch.topk(corr, top_k, dim=-1).indices
        out = []
        for i in range(b * n):
            out.append(
                f"<|start_prompt|>Dataset description: {description}Task description: forecast the next "
                f"{pred_len} steps given the previous {t} steps information; Input statistics: min value "
                f"{mins[i].item()}, max value {maxs[i].item()}, median value {medians[i].item()}, the trend "
                f"of input is {'upward' if trends[i] > 0 else 'downward'}, top 5 lags are : "
                f"{lags[i].tolist()}<|<end_prompt>|>")
        return out


def per_call(ours, theirs, repeat, rounds, warmup, warmup_s, interleave):
    """Each side's median ms per call, its best call, and the median speed-up.

    Rounds of blocks: in each round, untimed calls of ours (at least `warmup` of them, for
    at least `warmup_s` seconds), then `repeat` timed calls, then the same of theirs; a
    side's time is the median of its rounds' medians and the speed-up the median of the
    rounds' ratios. The VM's speed drifts by up to 2x within minutes, so one block per side
    would compare two different machines; adjacent blocks see the same one.

    The warm-up brings each side to its steady state, that of a loop that calls it alone.
    Right after PyTorch's path, PyTorch's OpenMP worker keeps spinning for ~8-9 ms (libgomp
    waits awake for its next parallel region), holding one of the two CPUs: ours runs at
    its one-thread speed until then (~113 us against ~70 us here), whatever the number of
    calls, so the warm-up is timed. (`--after`, in 2 ms bins after PyTorch's block: 110-122
    us up to 8 ms, ~80 at 8-10, ~70 from 12 on; with OMP_WAIT_POLICY=passive, 88 us at the
    second call and 70 from the twentieth.)

    `interleave`: one call of each in turn instead, the other case: a loop that runs
    PyTorch CPU ops right before each of our calls (their OpenMP threads spin after each
    op, and PyTorch's path evicts our caches).
    """

    def timed(f, n):
        t = []
        for _ in range(n):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
        return t

    ours(), theirs()  # warm-up
    medians, best = ([], []), ([], [])
    for _ in range(rounds):
        if interleave:
            t = ([], [])
            for _ in range(repeat):
                t[0].extend(timed(ours, 1))
                t[1].extend(timed(theirs, 1))
        else:
            t = []
            for f in (ours, theirs):
                start = time.perf_counter()
                calls = 0
                while calls < warmup or time.perf_counter() - start < warmup_s:
                    f()
                    calls += 1
                t.append(timed(f, repeat))
        for side in (0, 1):
            medians[side].append(statistics.median(t[side]))
            best[side].append(min(t[side]))
    ratio = statistics.median(th / us for us, th in zip(*medians))
    return [(statistics.median(m) * 1e3, min(b) * 1e3) for m, b in zip(medians, best)], ratio


def after_theirs(ours, theirs, calls=400, repeats=20, bin_ms=2.0):
    """Our call's median time by the time since PyTorch's path last ran (`--after`): how
    long PyTorch's spinning OpenMP worker slows us (see `per_call`)."""
    since, took = [], []
    for _ in range(repeats):
        for _ in range(20):
            theirs()
        t0 = time.perf_counter()
        for _ in range(calls):
            a = time.perf_counter()
            ours()
            b = time.perf_counter()
            since.append((a - t0) * 1e3)
            took.append((b - a) * 1e6)
    print("| ms after PyTorch's block | our call, median us | calls |\n|---|---|---|")
    for lo in np.arange(0, max(since), bin_ms):
        t = [d for s, d in zip(since, took) if lo <= s < lo + bin_ms]
        if len(t) >= repeats:
            print(f"| {lo:g}-{lo + bin_ms:g} | {statistics.median(t):.1f} | {len(t)} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=100, help="calls per side and round")
    ap.add_argument("--rounds", type=int, default=10, help="alternating blocks per side")
    ap.add_argument("--warmup", type=int, default=20, help="untimed calls before each block, at least")
    ap.add_argument("--warmup-ms", type=float, default=20.0,
                    help="untimed calls before each block for this long, at least (see per_call)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--interleave", action="store_true",
                    help="alternate the two sides' calls (PyTorch CPU ops between ours)")
    ap.add_argument("--batch", type=int, nargs=3, default=[32, 7, 512], metavar=("B", "N", "T"))
    ap.add_argument("--after", action="store_true",
                    help="instead: our gen+build call's time by the time since PyTorch's path ran")
    args = ap.parse_args()
    b, n, t = args.batch
    x = torch.randn(b, n, t, generator=torch.Generator().manual_seed(0)).to(args.device)
    ref = TorchPromptPath(device=args.device)
    gen = wavebench.DWTPromptGenerator()

    # Same path: the reference's numbers are wavebench's.
    got, want = ref.features(x), gen(x)
    for k in ("energy_ratio", "frequency_stds", "trends"):
        np.testing.assert_allclose(got[k], want[k], rtol=2e-3, atol=1e-6, err_msg=k)
    for k in ("freq_pattern", "trend_desc", "signal_quality", "difficulty"):
        assert got[k] == want[k], (k, got[k], want[k])
    base_info = dict(min=-2.5, max=2.5, median=0.0, lags=[1, 2, 3, 4, 5], description="bench",
                     seq_len=t, pred_len=96)
    assert ref.prompt(got, base_info) == gen.build_prompt_text(want, base_info)

    def gen_ours():
        return gen.build_prompt_text(gen(x), base_info)

    def gen_theirs():
        return ref.prompt(ref.features(x), base_info)

    if args.after:
        after_theirs(gen_ours, gen_theirs)
        return
    rows = [
        ("gen(x) + build_prompt_text", gen_ours, gen_theirs),
        ("timellm_prompts (B*N prompts)", lambda: wavebench.timellm_prompts(x, "bench", 96),
         lambda: ref.timellm_prompts(x, "bench", 96)),
    ]
    print(f"B={b} N={n} T={t}, device {args.device}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} torch threads, {args.rounds} rounds of {args.repeat} calls "
          f"per side" + (" interleaved" if args.interleave else
                         f" in alternating blocks, each after {args.warmup_ms:g} ms of warm-up"))
    print("| call | wavebench ms (min) | PyTorch ms (min) | speed-up |")
    print("|---|---|---|---|")
    for name, ours, theirs in rows:
        ((wm, wmin), (tm, tmin)), ratio = per_call(
            ours, theirs, args.repeat, args.rounds, args.warmup, args.warmup_ms / 1e3, args.interleave)
        print(f"| {name} | {wm:.3f} ({wmin:.3f}) | {tm:.3f} ({tmin:.3f}) | {ratio:.1f}x |")


if __name__ == "__main__":
    main()
