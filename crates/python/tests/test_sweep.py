"""The sweep from Python: `sweep_part` mapped over a real dask.distributed cluster and
`sweep_merge` give the command line's parts and reports byte for byte.

Run by `make test` (after `maturin develop`): WAVEBENCH_BIN names the CLI binary.
"""

import os
import pathlib
import subprocess
import warnings

import pytest
from dask.distributed import Client, LocalCluster

import wavebench

ROOT = pathlib.Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_data" / "synthetic.csv"
BIN = os.environ.get("WAVEBENCH_BIN") or str(
    pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "wavebench"
)

# A small grid (4 configurations) on short windows, few draws: seconds, not minutes.
OPTIONS = dict(seq_len=64, stride=16, pred_len=16, wavelets="db2,sym3", levels="1,2",
               null_draws=9, bootstrap=9)
FLAGS = ["--seq-len", "64", "--stride", "16", "--pred-len", "16", "--wavelets", "db2,sym3",
         "--levels", "1,2", "--null-draws", "9", "--bootstrap", "9"]
SHARDS = 4


def cli(*args):
    return subprocess.run([BIN, *map(str, args)], check=True, capture_output=True, text=True)


def cli_parts(tmp_path, data=SAMPLE, extra=()):
    """The CLI's parts of the sweep over `data`, and its merges as JSON and Markdown."""
    parts = []
    for i in range(1, SHARDS + 1):
        out = tmp_path / f"part{i}.json"
        cli("sweep", data, *FLAGS, *extra, "--shard", f"{i}/{SHARDS}", "--quiet", "-o", out)
        parts.append(out)
    merged = {}
    for fmt in ("json", "md"):
        out = tmp_path / f"merged.{fmt}"
        run = cli("sweep", "merge", *parts, "-o", out)
        merged[fmt] = out.read_text()
        merged["warnings"] = [line.removeprefix("wavebench: warning: ")
                              for line in run.stderr.splitlines()]
    return parts, merged


def one_part(i):
    """Shard i of 4, as a Dask task runs it (a module-level function: pickled by name)."""
    return wavebench.sweep_part(str(SAMPLE), (i, SHARDS), **OPTIONS)


def test_parts_mapped_over_a_dask_cluster_merge_to_the_clis_report(tmp_path):
    cli_files, cli_merged = cli_parts(tmp_path)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        workers = client.scheduler_info()["workers"]
        assert len(workers) == 2
        futures = client.map(one_part, range(1, SHARDS + 1))
        parts = client.gather(futures)
        # The tasks ran in the workers' processes, not here.
        ran_on = {w for ws in client.who_has(futures).values() for w in ws}
        assert ran_on and ran_on <= set(workers)
    assert len(parts) == len(cli_files) == SHARDS
    for part, file in zip(parts, cli_files):
        assert part == file.read_bytes(), file.name
    # In any order, as bytes or as the CLI's files; the sweep's warnings as UserWarnings.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert wavebench.sweep_merge(parts[::-1], format="json") == cli_merged["json"]
    assert cli_merged["warnings"], "the CLI's merge warned of nothing: pick data it warns on"
    assert [str(w.message) for w in caught] == cli_merged["warnings"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert wavebench.sweep_merge(cli_files, format="md") == cli_merged["md"]


def test_a_prepared_part_equals_the_unprepared_one(tmp_path):
    prepared = tmp_path / "prepared"
    cli("sweep", "prepare", SAMPLE, "--seq-len", "64", "--stride", "16", "--pred-len", "16",
        "--null-draws", "9", "--bootstrap", "9", "--quiet", "-o", prepared)
    plain = wavebench.sweep_part(SAMPLE, (2, 3), **OPTIONS)
    assert wavebench.sweep_part(SAMPLE, (2, 3), prepared=prepared, **OPTIONS) == plain
    with pytest.raises(ValueError, match=r"prepared with seq_len 64, and this sweep has seq_len 32"):
        wavebench.sweep_part(SAMPLE, (2, 3), prepared=prepared, **{**OPTIONS, "seq_len": 32})


def test_keywords_are_the_flags_and_refusals_name_them():
    with pytest.raises(TypeError, match=r"no keyword argument 'seq_lne'; did you mean seq_len\?"):
        wavebench.sweep_part(SAMPLE, (1, 2), seq_lne=64)
    with pytest.raises(ValueError, match=r"invalid value 'many' for 'seq_len'"):
        wavebench.sweep_part(SAMPLE, (1, 2), **{**OPTIONS, "seq_len": "many"})
    with pytest.raises(ValueError, match=r"^seq_len: a sweep scores windows of a given length"):
        wavebench.sweep_part(SAMPLE, (1, 2), wavelets="db2")
    with pytest.raises(ValueError, match=r"for 'shard': invalid shard '3/2'"):
        wavebench.sweep_part(SAMPLE, (3, 2), **OPTIONS)
    with pytest.raises(ValueError, match=r"sunspots.parquet: Parquet is read by the wavebench command line"):
        wavebench.sweep_part(ROOT / "sample_data" / "sunspots.parquet", (1, 2), **OPTIONS)
    with pytest.raises(ValueError, match=r"format: .*'xml'"):
        wavebench.sweep_merge([], format="xml")
    with pytest.raises(ValueError, match=r"no part given"):
        wavebench.sweep_merge([])
    # A list is a flag's values: levels=[1, 2] is --levels 1,2; claim=[...] repeats --claim.
    assert (wavebench.sweep_part(SAMPLE, (1, 4), **{**OPTIONS, "levels": [1, 2]})
            == wavebench.sweep_part(SAMPLE, (1, 4), **OPTIONS))


def test_the_datas_warnings_reach_python_and_match_the_cli(tmp_path):
    # Two text cells, read as missing under --missing interpolate, with one warning.
    lines = SAMPLE.read_text().splitlines()
    for row in (40, 90):
        cells = lines[row].split(",")
        cells[2] = "n/a"
        lines[row] = ",".join(cells)
    data = tmp_path / "text_cells.csv"
    data.write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        part = wavebench.sweep_part(data, (1, SHARDS), missing="interpolate", **OPTIONS)
    cli_file = tmp_path / "part.json"
    run = cli("sweep", data, *FLAGS, "--missing", "interpolate", "--shard", f"1/{SHARDS}",
              "--quiet", "-o", cli_file)
    assert part == cli_file.read_bytes()
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    printed = [line.removeprefix("wavebench: ") for line in run.stderr.splitlines()
               if line.startswith("wavebench: ")]
    assert said == printed, (said, run.stderr)
    assert len(said) == 1 and "2 non-numeric cells treated as missing" in said[0], said


def test_bad_files_are_skipped_as_the_cli_skips_them(tmp_path):
    """skip_bad_files=True skips a data set's bad files with a UserWarning each, as the
    CLI says them (keywords for flags), and refuses a set whose every file is bad."""
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "a.csv").write_text(SAMPLE.read_text())
    (folder / "b.csv").write_text("t,volts\n0,1\n1,2\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        part = wavebench.sweep_part(folder, (1, SHARDS), skip_bad_files=True, **OPTIONS)
    cli_file = tmp_path / "part.json"
    run = cli("sweep", folder, *FLAGS, "--skip-bad-files", "--shard", f"1/{SHARDS}",
              "--quiet", "-o", cli_file)
    assert part == cli_file.read_bytes()
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    printed = [line.removeprefix("wavebench: ").replace("--seq-len", "seq_len")
               for line in run.stderr.splitlines() if "skipping a bad file" in line]
    assert said[:1] == printed and len(printed) == 1, (said, run.stderr)
    assert "b.csv" in said[0] and "seq_len 64" in said[0], said
    (folder / "a.csv").write_text("t,volts\n0,1\n")
    with pytest.raises(ValueError, match="every file was skipped"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wavebench.sweep_part(folder, (1, SHARDS), skip_bad_files=True, **OPTIONS)


def test_a_part_computes_with_the_gil_released():
    """While a part computes, this thread runs: the GIL is released. A GIL held while it
    computes left the loop below 15 turns in 1.4 s (those while the file loaded)."""
    import threading
    import time

    done = threading.Event()
    result = {}

    def work():
        # ETTh1's 6 configurations of 512-row windows: about a second on 2 cores.
        result["part"] = wavebench.sweep_part(ROOT / "sample_data" / "ETTh1.csv", (1, 1),
                                              seq_len=512, wavelets="db2,db4", levels="1..3")
        done.set()

    worker = threading.Thread(target=work)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sweep's verdicts on ETTh1
        started = time.perf_counter()
        worker.start()
        turns = 0
        while not done.is_set():
            turns += 1
            time.sleep(0.002)
        worker.join()
    took = time.perf_counter() - started
    assert result["part"].startswith(b"{")
    assert took > 0.1, f"the part took {took:.3f} s: too short to tell"
    # Turns of 2 ms for at least a quarter of the time (free, it turns for most of it).
    assert turns >= took / 0.002 / 4, f"{turns} turns in {took:.2f} s"
