"""wavebench: wavelet features and LLM prompts for time-series forecasters, computed in Rust.

- ``DWTPromptGenerator``: a drop-in for the seed (same constructor, ``gen(x_enc)``
  returns its feature dict, ``gen.build_prompt_text(features, base_info)`` its prompt).
- ``timellm_prompts(x_enc, description, pred_len)``: Time-LLM's per-series prompt loop.
- ``features(x, ...)``: the features of docs/features.md per series, sample or batch, as numpy arrays.
- ``prompts(x_enc, template=..., wavelet=..., ...)``: any built-in template's per-series
  prompts; ``load_config(path)`` reads a sweep's ``--write-config`` file as its arguments.
- ``sweep_part(path, shard=(i, n), **options)`` and ``sweep_merge(parts, format=...)``: the
  sweep of ``wavebench sweep`` cut into parts for a distributed engine (Dask, Ray) and
  merged into its report, byte for byte the command line's (docs/python.md#the-sweep-on-a-cluster).

Inputs are numpy arrays or torch tensors of shape (B, N, T), float32 or float64, on any
device: CPU data is read in place, a CUDA tensor is copied to the host once. The work runs
in Rust with the GIL released. This module only adapts types; there is no math here.
"""

import os

import numpy as np

from . import _wavebench
from ._wavebench import TOP_LAGS

try:  # torch is optional: with it, the generator is an nn.Module (so .to(device) works)
    import torch

    _Module = torch.nn.Module
except ImportError:  # pragma: no cover - exercised by users without torch
    torch = None
    _Module = object

__all__ = ["DWTPromptGenerator", "features", "load_config", "prompts", "sweep_merge",
           "sweep_part", "timellm_prompts", "TOP_LAGS"]

COMPRESSION_LEVELS = ("minimal", "balanced", "detailed")


def _array(x, name="x_enc", tensor_only=False):
    """A numpy view of a tensor or array (no copy for CPU float32/float64 data in native
    byte order). Complex input is refused: dropping the imaginary part would be silent."""
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_complex():
            raise TypeError(f"{name} is complex ({x.dtype}); wavebench needs real values (pass {name}.real)")
        t = x.detach() if x.requires_grad else x
        if not t.is_cpu:
            t = t.cpu()  # the one host copy of a CUDA batch
        if t.dtype is not torch.float32 and t.dtype is not torch.float64:
            t = t.to(torch.float32)  # half, bfloat16, integers
        return t.numpy()
    if tensor_only or not isinstance(x, np.ndarray):
        raise TypeError(
            f"{name} must be a torch.Tensor{'' if tensor_only else ' or numpy.ndarray'}, "
            f"got {type(x).__name__}"
        )
    if x.dtype.kind == "c":
        raise TypeError(f"{name} is complex ({x.dtype}); wavebench needs real values (pass {name}.real)")
    if x.dtype.kind == "f" and x.dtype.itemsize in (4, 8):
        # Same width in native byte order: a big-endian float64 stays float64.
        return x.astype(x.dtype.newbyteorder("="), copy=False)
    return x.astype(np.float32)  # half precision, integers, booleans


def _level(level):
    """`level` as the int it must be (a bool is not a level), else an error naming it."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)):
        raise TypeError(f"level must be an int, got {level!r}")
    if level < 1:
        raise ValueError(f"level must be at least 1, got {level}")
    return int(level)


# What one series' results hold at most (features, lists, a prompt), and the share of the
# available memory a call may take: past it a call raises MemoryError instead of the
# allocator aborting the interpreter.
_BYTES_PER_SERIES = 1024
_MEMORY_SHARE = 0.9
_ALWAYS_FITS = 64 << 20


def _check_memory(x, name):
    import os

    series = int(np.prod(x.shape[:-1], dtype=np.int64)) if x.ndim else 1
    need = series * _BYTES_PER_SERIES
    if not (x.flags.c_contiguous or x.flags.f_contiguous):
        need += x.size * x.itemsize  # a strided view (e.g. a broadcast) is copied once
    if need < _ALWAYS_FITS:
        return  # a training step's batch: no system call on the hot path
    try:
        have = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if need > _MEMORY_SHARE * have:
        raise MemoryError(
            f"{name} of shape {tuple(x.shape)} ({series} series) needs about {need / 1e9:.1f} GB, "
            f"{have / 1e9:.1f} GB are available: pass fewer series per call"
        )


def _batch(x_enc):
    x = _array(x_enc)
    if x.ndim != 3:
        raise ValueError(f"x_enc must be 3-D (B, N, T), got shape {tuple(x.shape)}")
    _check_memory(x, "x_enc")
    return x


def features(x, wavelet="db4", level=3, mode="reflect", aggregate="series", normalize="none",
             seed_compatible=False, lags="timellm"):
    """The features (docs/features.md) of every prompt unit of x (B, N, T) as a dict of numpy arrays.

    aggregate: 'series' (B*N units, sample-major), 'sample' (B) or 'batch' (1).
    normalize: 'none' (the default: a model has normalised x_enc already), 'zscore', 'revin'.
    degenerate: per unit "constant", "level" or None; a constant unit's descriptions read
    "constant input" and its lags are empty, unless seed_compatible (the seed's wording).
    lags: which top lags `lags` holds: 'timellm' (Time-LLM's), 'clean' (lags 1..=T/2) or
    'peaks' (the autocorrelation's local maxima: the periods each series repeats at);
    `lags_clean` always holds the clean ones.
    """
    level = _level(level)
    x = _array(x, "x")
    _check_memory(x, "x")
    return _wavebench.features(x, wavelet, level, mode, aggregate, normalize, seed_compatible,
                               lags)


def timellm_prompts(x_enc, description, pred_len, top_k=5, normalize="none", seed_compatible=False):
    """Time-LLM's per-series prompts for x_enc (B, N, T): B*N strings, sample-major, as
    `wavebench prompts --template timellm --aggregate series` renders them (a constant
    series says so, unless seed_compatible: Time-LLM's wording)."""
    return _wavebench.timellm_prompts(_batch(x_enc), description, pred_len, top_k, normalize,
                                      seed_compatible)


def prompts(x_enc, template="dwt-balanced", wavelet="db4", level=3, mode="reflect",
            description="", pred_len=96, normalize="none", lags="timellm", seed_compatible=False):
    """Every series' prompt of x_enc (B, N, T) under a built-in template: B*N strings,
    sample-major, as `wavebench prompts --template T --normalize none` renders each window.

    normalize: 'none' (the default: a model has normalised x_enc already), 'zscore', 'revin'.
    ``prompts(x_enc, **load_config("best.toml"))`` gives a sweep row's prompts.
    """
    return _wavebench.prompts(_batch(x_enc), template, wavelet, _level(level), mode,
                              description, pred_len, normalize, lags, seed_compatible)


def sweep_part(path, shard, **options):
    """One shard's part of the sweep over ``path`` (a CSV or TSV file, a folder or a glob of
    them), as the bytes ``wavebench sweep PATH --shard I/N -o PART.json`` writes.

    ``shard=(i, n)`` is 1-based, like ``--shard``. The keyword arguments are the sweep's
    flags in snake_case: ``seq_len=336, wavelets="db1,db2", levels="1,2", null_draws=99``;
    ``prepared=DIR`` reads what ``wavebench sweep prepare`` computed once. The work runs in
    Rust with the GIL released; the data's warnings come as ``UserWarning``s.
    """
    i, n = shard
    return _wavebench.sweep_part(os.fspath(path), (i, n), **options)


def sweep_merge(parts, format="json", by=None, keep_degenerate=False):
    """The report of every part of one sweep (what ``sweep_part`` returned, or part
    files), in any order, as ``wavebench sweep merge`` writes it: ``format`` is "json",
    "md" or "csv", ``by`` ranks as ``--by`` does.
    """
    parts = [bytes(p) if isinstance(p, (bytes, bytearray, memoryview)) else os.fspath(p)
             for p in parts]
    return _wavebench.sweep_merge(parts, format, by, keep_degenerate)


# What `prompts` reads of a configuration file; the rest (the data options, the engine)
# is the command line's.
_PROMPT_KEYS = ("template", "wavelet", "level", "mode", "description", "pred_len", "lags",
                "seed_compatible")


def load_config(path):
    """A configuration file's prompt settings (template, wavelet, level, mode, description,
    pred_len, lags) as keyword arguments of `prompts`: the file `wavebench sweep
    --write-config` writes for the row it picks.
    """
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError as e:
            raise ImportError("load_config needs Python 3.11 or the tomli package") from e
    with open(path, "rb") as f:
        cfg = tomllib.load(f)
    template = cfg.get("template", "dwt-balanced")
    builtins = ("timellm", "dwt-minimal", "dwt-balanced", "dwt-detailed")
    if template not in builtins:
        raise ValueError(
            f"{path}: template '{template}' is not a built-in ({', '.join(builtins)}); "
            "prompts() renders the built-ins"
        )
    return {k: cfg[k] for k in _PROMPT_KEYS if k in cfg}


class DWTPromptGenerator(_Module):
    """The seed's DWTPromptGenerator, computed by wavebench.

    gen = DWTPromptGenerator(wavelet='db4', level=3, compression_level='balanced')
    feats = gen(x_enc)                    # x_enc: (B, N, T) tensor on any device
    text = gen.build_prompt_text(feats, base_info)
    """

    def __init__(self, wavelet="db4", level=3, compression_level="balanced",
                 use_adaptive_thresholds=False, mode="reflect"):
        if _Module is not object:
            super().__init__()
        level = _level(level)
        # Checked here (ValueError), planned once for the batches' length.
        self._transform = _wavebench.Transform(wavelet, level, mode)
        if compression_level not in COMPRESSION_LEVELS:
            raise ValueError(
                f"compression_level {compression_level!r}: expected one of {', '.join(COMPRESSION_LEVELS)}"
            )
        if use_adaptive_thresholds:
            raise ValueError(
                "use_adaptive_thresholds=True is not supported: wavebench describes features "
                "with the fixed thresholds of docs/features.md#descriptions, so prompts stay comparable across batches"
            )
        self.wavelet = wavelet
        self.level = level
        self.mode = mode
        self.compression_level = compression_level
        self.use_adaptive_thresholds = use_adaptive_thresholds

    def forward(self, x_enc):
        """The feature dict of all B*N series of x_enc together (the seed's keys and types)."""
        return self._transform.batch_features(_batch(x_enc))

    if _Module is object:
        __call__ = forward

    def build_prompt_text(self, features, base_info):
        """The dwt-<compression_level> prompt, byte for byte as the CLI renders it.

        base_info: min, max, median, lags, description, seq_len, pred_len.
        """
        return _wavebench.generator_prompt(f"dwt-{self.compression_level}", features, base_info)

    def extra_repr(self):
        return (f"wavelet={self.wavelet!r}, level={self.level}, mode={self.mode!r}, "
                f"compression_level={self.compression_level!r}")
