"""A sweep's chosen configuration in a Time-LLM-style training loop, end to end.

    wavebench sweep ETTh1.csv --seq-len 512 --split ett-hour --write-config best.toml -o sweep.md
    python timellm_loop.py ETTh1.csv best.toml

Time-LLM normalises each window (RevIN) before it computes its prompt's statistics, so the
prompts are asked for with normalize='none' on the normalised batch; the model, the
tokenizer and the optimiser are stand-ins: the point is where the prompts come from.
"""

import sys
import tomllib

import numpy as np
import torch

import wavebench


def windows(values, seq_len, pred_len, batch_size):
    """Time-LLM's loader: every window (stride 1) with its horizon, as (B, N, T) batches."""
    x = torch.from_numpy(values.T.copy())  # (N, rows)
    starts = range(0, values.shape[0] - seq_len - pred_len + 1)
    for k in range(0, len(starts), batch_size):
        chunk = starts[k:k + batch_size]
        x_enc = torch.stack([x[:, s:s + seq_len] for s in chunk])
        y = torch.stack([x[:, s + seq_len:s + seq_len + pred_len] for s in chunk])
        yield x_enc, y


def revin(x_enc, eps=1e-5):
    """Time-LLM's normalisation of each series of the batch (its RevIN without affine)."""
    mean = x_enc.mean(dim=-1, keepdim=True)
    std = torch.sqrt(x_enc.var(dim=-1, keepdim=True, unbiased=False) + eps)
    return (x_enc - mean) / std


def main(csv, config, batches=3, batch_size=32):
    cfg = wavebench.load_config(config)
    with open(config, "rb") as f:
        seq_len = tomllib.load(f)["seq_len"]  # the window the sweep scored
    values = np.genfromtxt(csv, delimiter=",", skip_header=1)[:, 1:]  # the date column off
    pred_len = cfg.get("pred_len", 96)
    for step, (x_enc, y) in enumerate(windows(values, seq_len, pred_len, batch_size)):
        if step == batches:
            break
        x_enc = revin(x_enc)
        prompts = wavebench.prompts(x_enc, normalize="none", **cfg)  # B*N, sample-major
        assert len(prompts) == x_enc.shape[0] * x_enc.shape[1]
        # model(x_enc, prompts, y) would tokenise the prompts here.
        print(f"batch {step}: {len(prompts)} prompts for x_enc {tuple(x_enc.shape)}")
    print(prompts[0])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
