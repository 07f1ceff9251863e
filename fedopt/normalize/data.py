"""Measurements: the CSV format of ``normalize`` and the shared public measurements in that format.

A measurement table has the columns ``workload, card_type, cards, throughput``: the whole job's
work per second on ``cards`` cards of ``card_type`` (higher is better; 0 = the job cannot run
there, e.g. out of memory). Query tables have the first three.

The shared measurements (``/work/shared/data``, see its README):

- Gavel (stanford-futuredata/gavel @ c4fa400, MIT): ``gavel_isolated_throughputs_physical.csv``,
  steps/s of 26 job types on K80, P100 and V100 at 1, 2, 4 and 8 GPUs (``scale_factor``).
- MLPerf Training v3.1, v4.0, v4.1 (mlcommons/training_results_*, Apache-2.0): closed-division
  systems of exactly 8 accelerators (one node), throughput = 1 / olympic-mean minutes to train
  (median minutes when there is no olympic mean), the median over the submissions of the same
  accelerator in the same round. Each round's benchmark is its own workload
  (``mlperf-v4.1/bert``): software moves between rounds.
- MLPerf's systems past one node (16-3584 accelerators, same rules; ``scaleout=True``) calibrate
  and evaluate how a job slows as it grows past a node.

Held-out data (``data/``, see its README): MLPerf Inference v4.1 and v5.1 closed-division
datacenter results (and v5.0 and v6.1, test sets the priors never see), Offline scenario (samples
or tokens per second of whole one-node systems of 1-16 accelerators), and MLPerf Training v5.1 and
v6.0 runs on 8 accelerators (MI300X-MI355X, H200, GH200, B200-GB300): other workloads and newer
cards than the shared data, to check that the model generalizes; and Lambda's PyTorch training
benchmarks (NVIDIA DeepLearningExamples, FP16/AMP and FP32, on twelve card types from Quadro RTX
8000 and V100 to RTX 4090, RTX 6000 Ada and H100 at 1-8 GPUs), added 2026-12-03 with the TF32
share they showed the model lacked, and Lambda's TensorFlow CNN benchmarks (GTX 1080 Ti to A100),
gathered after that share was fixed, as its test set. The v6.0 runs were gathered after the
model's design was fixed, as a test set; the calibrated priors added after (2026-12-03) were
chosen looking at every set, v6.0 included. The shipped calibration (``calibrate.py``) pools every
set for its card and architecture priors, and an evaluation of a set uses priors calibrated
without it (``calibration_measurements(exclude=...)``). llama.cpp's published tokens/s (quantized
LLaMA decoding and prompt processing on GeForce and workstation cards at 1-8 GPUs, split by layers)
were gathered 2026-12-04 as test sets of other workloads the priors never see; TensorRT-LLM's serving
figures (2026-12-06) likewise, and three sets for the cards no other set measured (H20, H800, A800,
Ascend 910B): NVIDIA's Cosmos generation times, StepFun's Step-3 attention-layer times and Huawei's
ModelZoo tables of Atlas A2 servers beside an A100-class GPU."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from fedopt.errors import InputError

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
GAVEL_CSV = SHARED_DATA / "gavel" / "gavel_isolated_throughputs_physical.csv"
MLPERF_CSVS = [SHARED_DATA / "mlperf" / f"mlperf_training_v{v}_summary.csv" for v in ("3.1", "4.0", "4.1")]
MLPERF_CARDS = 8
INFERENCE_DIR = Path(__file__).resolve().parents[2] / "data" / "mlperf_inference"
TRAINING_RUNS_CSV = INFERENCE_DIR.parent / "mlperf_training" / "training_v5.1_8acc_runs.csv"
# gathered after the model's design was fixed (a test set for it; the calibrated priors came later)
TRAINING_V60_RUNS_CSV = INFERENCE_DIR.parent / "mlperf_training" / "training_v6.0_8acc_runs.csv"
# v5.0 (June 2025), gathered 2026-12-04 after every design choice and calibration: a test set that
# the shipped priors never see (``TEST_ONLY_SOURCES``)
TRAINING_V50_RUNS_CSV = INFERENCE_DIR.parent / "mlperf_training" / "training_v5.0_8acc_runs.csv"
# v3.0 (June 2023: the H100's first round), gathered 2026-12-06 after every design choice and calibration:
# systems of one node, 2-10 cards (H100 and A100, SXM and PCIe; A30, A40, L4, Gaudi2), a test set
TRAINING_V30_RUNS_CSV = INFERENCE_DIR.parent / "mlperf_training" / "training_v3.0_1node_runs.csv"
# v6.0 systems past 8 accelerators (one run each): how jobs slow as they grow, on newer cards
TRAINING_V60_MULTI_CSV = INFERENCE_DIR.parent / "mlperf_training" / "training_v6.0_multinode_runs.csv"

# Lambda's PyTorch training benchmarks: NVIDIA DeepLearningExamples on one node of 1-8 GPUs, AMP and FP32
LAMBDA_CSVS = [INFERENCE_DIR.parent / "lambda" / f"pytorch-train-throughput-{p}.csv" for p in ("fp16", "fp32")]
# its older TensorFlow CNN benchmarks (tf_cnn_benchmarks: GTX 1080 Ti to A100), a test set for the FP32 share
LAMBDA_TF_CSVS = [INFERENCE_DIR.parent / "lambda" / f"tf-train-throughput-{p}.csv" for p in ("fp16", "fp32")]
# a system more than this much faster per card than one card of its type reports a broken figure
LAMBDA_MAX_PER_CARD_GAIN = 1.5
# llama.cpp's tokens/s (XiongjieDai/GPU-Benchmarks-on-LLM-Inference): decoding and prompt processing
# of quantized LLaMA 2 / 3 on consumer and workstation cards at 1-8 GPUs, gathered 2026-12-04 as a test set
LLAMACPP_CSVS = [INFERENCE_DIR.parent / "llamacpp" / f for f in ("llama2_overview.csv", "llama3_nvidia.csv")]
# NVIDIA's TensorRT-LLM performance overview (docs/source/performance/perf-overview.md): output tokens/s
# of LLM serving at maximum load, per model, input/output length, card and tensor/pipeline split, three
# releases (v0.13: H200, GH200, H100, A100, L40S; v0.21: B200, GB200, H200, GH200, H100; v1.2: B200,
# B300, GB200, GB300, H200, RTX PRO 6000), gathered 2026-12-06 as test sets
TRTLLM_CSVS = [INFERENCE_DIR.parent / "trtllm" / f"perf_overview_{v}.csv" for v in ("v0.13", "v0.21", "v1.2")]
# published times of one job (seconds per generation, microseconds per layer), one set per file
TIMED_CSVS = {
    "cosmos": INFERENCE_DIR.parent / "cosmos" / "cosmos_generation_times.csv",
    "step3-attention": INFERENCE_DIR.parent / "step3" / "step3_attention_layer_times.csv",
}
TIME_UNITS = {"seconds": 1.0, "microseconds": 1e-6}
ASCEND_CSV = INFERENCE_DIR.parent / "ascend" / "modelzoo_gpu_vs_atlas_a2.csv"

MEASUREMENT_COLUMNS = ("workload", "card_type", "cards", "throughput")
QUERY_COLUMNS = ("workload", "card_type", "cards")


def canonical_column(name: str) -> str:
    """Header cells as people write them: ``" Card Type"`` and ``card-type`` mean ``card_type``."""
    return "_".join(str(name).strip().lower().replace("-", " ").split())


def read_table(path: str | Path, columns: tuple[str, ...], what: str, raw: bool = False):
    """Read and check a measurement (or query) CSV; ``InputError`` names the file, row and column.

    Rows are numbered as in the file: the header is line 1, the first data row line 2. Returns the
    table with ``cards`` (and ``throughput``) converted, and with ``raw=True`` also the cells as read.
    """
    src = str(path)
    try:
        # the header read as a row: pandas would rename a repeated column ("throughput.1") and hide it
        df = pd.read_csv(path, header=None, dtype=str, keep_default_na=False, skipinitialspace=True, encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(what, f"no such file: {src}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(what, f"cannot read {src}: {exc}") from None
    except pd.errors.EmptyDataError:
        raise InputError("line 1", f"empty file; expected a header with columns {', '.join(columns)}", src) from None
    except pd.errors.ParserError as exc:
        raise InputError("(file)", f"not a valid CSV: {exc}", src) from None
    header = [str(c).strip() for c in df.iloc[0]]
    df = df.iloc[1:].reset_index(drop=True)
    _refuse_repeated_columns(header, columns, src)
    df.columns = header
    written = list(df.columns)
    canon = [canonical_column(c) for c in df.columns]
    for want in columns:  # a column written in another case or spacing, when it is the only one
        if want not in df.columns and canon.count(want) == 1:
            written[canon.index(want)] = want
    if len(set(written)) == len(written):
        df.columns = written
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(
            "line 1",
            f"missing column(s) {', '.join(missing)}; expected {', '.join(columns)} (found {', '.join(df.columns)})",
            src,
        )
    out = df.copy()
    for col in ("workload", "card_type"):
        out[col] = df[col].str.strip()  # "bert " in one file is "bert" in the other (the raw cells are kept for output)
        empty = np.flatnonzero(out[col].eq("").to_numpy())
        if empty.size:
            raise InputError(f"line {empty[0] + 2}, column {col}", "empty", src)
    cards = _numbers(df["cards"], "cards", src, f"expected a whole number of cards >= 1 and <= {MAX_CARDS:,}", _whole_cards)
    out["cards"] = cards.astype(np.int64)
    if "throughput" in columns:
        # a row whose throughput cell is blank (or NA) measured nothing: dropped, its lines kept for a note
        blank = df["throughput"].str.strip().str.lower().isin(UNMEASURED_CELLS).to_numpy()
        out, df = out[~blank].reset_index(drop=True), df[~blank].reset_index(drop=True)
        lines = np.flatnonzero(~blank) + 2
        expected = "expected a finite number >= 0"
        out["throughput"] = _numbers(df["throughput"], "throughput", src, expected, lambda x: x >= 0, lines)
        out.attrs["unmeasured_lines"] = (np.flatnonzero(blank) + 2).tolist()
    return (out, df) if raw else out


# throughput cells that say "not measured" as spreadsheets and data frames write it (pandas writes NaN as
# an empty cell, R as NA): such a row is skipped with a note, not refused
UNMEASURED_CELLS = ("", "na", "n/a", "nan", "null", "none")


def _refuse_repeated_columns(header: list[str], columns: tuple[str, ...], src: str) -> None:
    """A key column written twice (``throughput,throughput`` or ``card_type,Card Type``) is refused
    rather than one of its two meanings picked."""
    canon = [canonical_column(c) for c in header]
    for want in columns:
        at = [i + 1 for i, c in enumerate(canon) if c == want]
        if len(at) > 1:
            cells = ", ".join(repr(header[i - 1]) for i in at)
            where = f"({cells}, columns {', '.join(map(str, at))})"
            raise InputError("line 1", f"column {want} is written {len(at)} times {where}; keep one", src)


MAX_CARDS = 10_000_000  # past any fleet; beyond it a count is a typo (and 1e30 would overflow int64)


def _whole_cards(x: np.ndarray) -> np.ndarray:
    return (x >= 1) & (x <= MAX_CARDS) & (x == np.floor(x))


def _numbers(cells: pd.Series, col: str, src: str, expected: str, ok, lines: np.ndarray | None = None) -> np.ndarray:
    """The column as floats; ``InputError`` at the first cell that is not a number or fails ``ok``
    (checked on the whole column at once: a million rows in well under a second). ``lines``: each
    cell's line in the file, when rows were dropped before (else the header's line 1, then 2, 3 ...)."""
    x = pd.to_numeric(cells.str.strip(), errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(x) & ok(x))  # NaN (not a number) fails too
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        line = int(lines[i]) if lines is not None else i + 2
        if np.isnan(x[i]) and cells.iloc[i].strip().lower() != "nan":
            raise InputError(f"line {line}, column {col}", f"not a number: {cells.iloc[i]!r}", src)
        raise InputError(f"line {line}, column {col}", f"{expected}, got {cells.iloc[i]!r}", src)
    return x


def gavel(path: Path = GAVEL_CSV) -> pd.DataFrame:
    df = pd.read_csv(path)
    return pd.DataFrame(
        {
            "workload": "gavel/" + df["job_type"].astype(str),
            "card_type": df["gpu"].astype(str),
            "cards": df["scale_factor"].astype(np.int64),
            "throughput": df["isolated_throughput_steps_per_s"].astype(float),
            "source": "gavel",
        }
    )


def mlperf(paths: list[Path] = MLPERF_CSVS, cards: int | None = MLPERF_CARDS, scaleout: bool = False) -> pd.DataFrame:
    """MLPerf rows at ``cards`` accelerators, or (``scaleout``) every system past one node of 8."""
    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    size = df["total_accelerators"] > MLPERF_CARDS if scaleout else df["total_accelerators"] == cards
    df = df[size & (df["division"] == "closed")].copy()
    minutes = df["olympic_mean_minutes"].fillna(df["median_minutes"])
    df = df[minutes > 0].copy()
    df["tp"] = 1.0 / minutes[minutes > 0]
    df["key"] = _card_keys(df["accelerator_model_name"], keep_unknown=True)
    df["cards"] = df["total_accelerators"]
    return _median_cells(df, "accelerator_model_name", ["version", "benchmark"], "mlperf-{}/{}", lambda *_: "mlperf")


def _card_keys(names: pd.Series, keep_unknown: bool = False) -> list[str]:
    """Catalog ids of card names; a name with no specs stays as written (``keep_unknown``) or is ""."""
    from fedopt.normalize.cards import CardResolver

    res = CardResolver()
    return [(c.id if (c := res.resolve(n)) else (n if keep_unknown else "")) for n in names]


def _median_cells(df: pd.DataFrame, name_col: str, by: list[str], workload: str, source) -> pd.DataFrame:
    """One measurement row per (``by``, card ``key``, ``cards``): the median ``tp`` of its rows (the
    submissions or runs of one card), the card named as most of them write it."""
    rows = [
        {
            "workload": workload.format(*k[:-2]),
            "card_type": g[name_col].mode().iloc[0],
            "cards": int(k[-1]),
            "throughput": float(np.median(g["tp"])),
            "source": source(*k[:-2]),
        }
        for k, g in df.groupby([*by, "key", "cards"], sort=True)
    ]
    return pd.DataFrame(rows)


def shared_measurements(scaleout: bool = False) -> pd.DataFrame:
    """Gavel and MLPerf (8 accelerators) in the measurement format, with a ``source`` column;
    with ``scaleout``, also MLPerf's systems past one node (source ``mlperf-scaleout``)."""
    missing = [str(p) for p in (GAVEL_CSV, *MLPERF_CSVS) if not p.exists()]
    if missing:
        raise InputError("shared data", f"not found: {', '.join(missing)} (give --measurements instead)")
    parts = [gavel(), mlperf()]
    if scaleout:
        parts.append(mlperf(scaleout=True).assign(source="mlperf-scaleout"))
    return pd.concat(parts, ignore_index=True)


# MLPerf Inference scenarios kept, each file a set of its own: Offline (no latency bound), Server
# (Poisson arrivals under a latency bound) and Interactive (v5.1 on: LLMs under a tighter one)
INFERENCE_SCENARIOS = ("offline", "server", "interactive")


def _inference_files() -> list[Path]:
    """Every round's Offline file, then the Server and Interactive ones (``..._server.csv``)."""
    return [f for s in INFERENCE_SCENARIOS for f in sorted(INFERENCE_DIR.glob(f"inference_v*_closed_datacenter_{s}.csv"))]


def _round_of(path: Path) -> str:
    """``v4.1`` for an Offline file, ``v4.1-server`` for a Server one: a scenario is a set of its own
    (its throughputs are held to a latency bound, so the same system reports less than Offline)."""
    rnd = "v" + path.name.split("_v", 1)[1].split("_", 1)[0]
    scenario = path.stem.rsplit("_", 1)[-1]
    return rnd if scenario == "offline" else f"{rnd}-{scenario}"


def companion_sources(source: str) -> tuple[str, ...]:
    """Sets measured on the same systems as ``source``: the same MLPerf Inference round's other
    scenarios (the same submissions' cards), which the priors of an evaluation of it must not have
    seen either."""
    if not source.startswith("inference-v"):
        return ()
    rnd = "-".join(source.split("-")[:2])  # inference-v4.1
    return tuple(s for s in (rnd, *(f"{rnd}-{x}" for x in INFERENCE_SCENARIOS[1:])) if s != source)


def mlperf_inference(paths: list[Path] | None = None) -> pd.DataFrame:
    """MLPerf Inference results in the measurement format, each scenario file a set of its own
    (``source`` = the round, ``inference-v4.1``; a Server file's ``inference-v4.1-server``).

    One workload per round, scenario and benchmark (``mlperf-inf-v4.1/bert-99``,
    ``mlperf-inf-v4.1-server/bert-99``); the ``-99.9`` accuracy variants are left out where the
    round has the ``-99`` one (mostly the same runs, else the same model at a higher precision);
    throughput = the median over submissions of the same card and count. Systems without
    accelerators (CPU only), multi-node systems (``a#`` counts per node there) and cards without
    specs in the catalog (UntetherAI's speedAI240) are left out.
    """
    paths = paths or _inference_files()
    parts = []
    for path in paths:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
        df["round"] = _round_of(Path(path))
        parts.append(df)
    df = pd.concat(parts, ignore_index=True)
    # a -99.9 benchmark is left out where its round also ran the -99 one (mostly the same runs, else
    # the same model at a higher precision); v6.1 ran Llama 2 70B at -99.9 only, which stays
    ran = pd.MultiIndex.from_arrays([df["round"], df["model"]])
    twin = pd.MultiIndex.from_arrays([df["round"], df["model"].str.removesuffix("-99.9") + "-99"]).isin(ran)
    strict_dup = df["model"].str.endswith("-99.9").to_numpy() & twin
    df = df[(df["accelerator"].str.strip() != "") & (df["nodes"] == "1") & ~strict_dup].copy()
    df["cards"] = df["accelerators"].astype(float).astype(np.int64)
    # "NVIDIA A100-PCIe-80GB (1x1g.10gb MIG)": the run used that many MIG instances, whatever cards
    # the machine has (Azure's v3.0 VM of four A100s ran one 1g.10gb slice: 1/7 of one card's rate;
    # HPE's v2.1 Apollo, its JSON saying 8 accelerators, ran at NVIDIA's one-slice rates)
    from fedopt.normalize.mig import mig_instances

    slices = df["accelerator"].map({a: mig_instances(a) for a in df["accelerator"].unique()})
    df.loc[slices.notna(), "cards"] = slices.dropna().astype(np.int64)
    df["tp"] = df["result"].astype(float)
    df["key"] = _card_keys(df["accelerator"])
    df = df[df["key"] != ""]
    return _median_cells(df, "accelerator", ["round", "model"], "mlperf-inf-{}/{}", lambda rnd, _: f"inference-{rnd}")


def mlperf_training_held_out(path: Path = TRAINING_RUNS_CSV) -> pd.DataFrame:
    """MLPerf Training runs on one node (v5.1: Llama 2 70B LoRA, Llama 3.1 8B, DLRMv2, R-GAT,
    RetinaNet on 8 accelerators; v6.0 with ``TRAINING_V60_RUNS_CSV``: LoRA, Llama 3.1 8B, GPT-OSS 20B,
    DLRMv2; v3.0 with ``TRAINING_V30_RUNS_CSV``: BERT, ResNet-50, RetinaNet (``ssd``), Mask R-CNN,
    RNN-T, 3D U-Net, DLRMv2 on 2-10 cards), one row per benchmark, card type and count: throughput =
    the median over its runs of 1 / minutes to train (``run_stop - run_start`` of successful runs,
    one or two per system). The round is read from the file name (``training_v5.1_...``)."""
    found = re.search(r"_(v\d+(?:\.\d+)*)_", Path(path).name)
    rnd = found.group(1) if found else Path(path).stem
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df = df[(df["run_stop_status"] == "success") & (df["run_start_ms"] != "") & (df["run_stop_ms"] != "")].copy()
    minutes = (df["run_stop_ms"].astype(np.int64) - df["run_start_ms"].astype(np.int64)) / 60000.0
    df["tp"] = 1.0 / minutes
    df["key"] = _card_keys(df["accelerator_model_name"])
    df["cards"] = df["accelerators_per_node"].astype(int) * df["number_of_nodes"].astype(int)
    df = df[df["key"] != ""]
    return _median_cells(df, "accelerator_model_name", ["benchmark"], f"mlperf-train-{rnd}/{{}}", lambda _: f"training-{rnd}")


def lambda_benchmarks(paths: list[Path] | None = None) -> pd.DataFrame:
    """Lambda's PyTorch training throughputs in the measurement format (source ``lambda-pytorch``;
    with ``LAMBDA_TF_CSVS`` its TensorFlow CNN benchmarks, source ``lambda-tensorflow``, workloads
    ``lambda-tf-fp16/resnet50``; its laptop Max-Q cards have no specs and are left out).

    One workload per model and precision (``lambda-fp16/resnet50``: automatic mixed precision;
    ``lambda-fp32/...``: FP32, which NGC's PyTorch runs as TF32 on Ampere and newer); the card
    count is ``num_gpu``; throughput = the median over the systems of one card type and count
    (Lambda's own, its cloud's, Dell's, Supermicro's, 1CC's H100 servers). Cells of 0 or -1 were not
    run or failed and are left out, and so is a system more than ``LAMBDA_MAX_PER_CARD_GAIN`` times
    faster per card than the median one card of its type (NCF on four of the five 8x H100 systems
    reports 3-400x: broken figures)."""
    paths = paths or LAMBDA_CSVS
    parts = []
    for path in paths:
        prec = Path(path).stem.rsplit("-", 1)[-1]
        tf = Path(path).name.startswith("tf-")
        df = pd.read_csv(path)
        ids = [c for c in ("name_gpu", "num_gpu", "watt", "price") if c in df.columns]
        long = df.melt(id_vars=ids, var_name="model", value_name="tp")
        long["prec"] = ("tf-" if tf else "") + prec
        long["set"] = "lambda-tensorflow" if tf else "lambda-pytorch"
        parts.append(long)
    df = pd.concat(parts, ignore_index=True)
    df = df[df["tp"] > 0].copy()
    df["cards"] = df["num_gpu"].astype(np.int64)
    df["key"] = _card_keys(df["name_gpu"])
    df = df[df["key"] != ""]
    per_card = df["tp"] / df["cards"]
    one = df[df["cards"] == 1].groupby(["prec", "model", "key"])["tp"].median().rename("one")
    ref = df.join(one, on=["prec", "model", "key"])["one"]
    df = df[~(per_card > LAMBDA_MAX_PER_CARD_GAIN * ref)]
    return _median_cells(df, "key", ["set", "prec", "model"], "lambda-{1}/{2}", lambda s, *_: s)


def llamacpp_benchmarks(paths: list[Path] | None = None) -> pd.DataFrame:
    """llama.cpp's published tokens/s in the measurement format (sources ``llamacpp-llama2``,
    ``llamacpp-llama3``): one workload per model, quantization, phase (``tg``: text generation,
    memory-bound decoding of one sequence; ``pp``: prompt processing, compute-bound) and token
    count (``llamacpp-llama3/8B Q4_K_M tg512``); ``gpus`` is the card count (llama.cpp splits the
    layers across them). Out-of-memory cells and cards without specs are left out."""
    parts = []
    for path in paths or LLAMACPP_CSVS:
        df = pd.read_csv(path, dtype={"tokens_per_s": str, "tokens": str}, keep_default_na=False)
        df = df[df["tokens_per_s"] != "OOM"].copy()
        df["tp"] = df["tokens_per_s"].astype(float)
        df["set"] = "llamacpp-" + Path(path).stem.split("_")[0]
        df["wl"] = df["model"].str.split().str[-1] + " " + df["quant"] + " " + df["phase"] + df["tokens"]
        parts.append(df)
    df = pd.concat(parts, ignore_index=True)
    df["cards"] = df["gpus"].astype(np.int64)
    df["key"] = _card_keys(df["gpu"])
    df = df[(df["key"] != "") & (df["tp"] > 0)]
    return _median_cells(df, "gpu", ["set", "wl"], "{}/{}", lambda s, *_: s)


def trtllm_benchmarks(paths: list[Path] | None = None) -> pd.DataFrame:
    """TensorRT-LLM's published output tokens/s in the measurement format (sources ``trtllm-v0.13``,
    ``trtllm-v0.21``, ``trtllm-v1.2``, one per release: software moves between them): one workload
    per model and input/output length (``trtllm-v1.2/Llama 3.3 70B 1024/1024``). The number format is
    NVIDIA's recipe for each card (FP4 on Blackwell, FP8 on Hopper and Ada), as an MLPerf submitter
    picks it, so it is not part of the workload; a 16-bit run beside it (v0.13's H100 and A100 at
    FP16) is a workload of its own (``... 128/128 fp16``). Where one card count ran several splits
    (tensor x pipeline), the fastest: the one a user would deploy."""
    parts = []
    for path in paths or TRTLLM_CSVS:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
        df = df[df["tokens_per_s"] != ""].copy()
        df["tp"] = df["tokens_per_s"].astype(float)
        if "per_gpu" in df:
            df.loc[df["per_gpu"] == "yes", "tp"] *= df["gpus"].astype(float)
        df["set"] = "trtllm-" + Path(path).stem.rsplit("_", 1)[-1]
        sixteen = df["precision"].str.upper().isin(["FP16", "BF16"])
        df["wl"] = df["model"] + " " + df["isl"] + "/" + df["osl"] + np.where(sixteen, " fp16", "")
        parts.append(df)
    df = pd.concat(parts, ignore_index=True)
    df["cards"] = df["gpus"].astype(np.int64)
    df["key"] = _card_keys(df["gpu"])
    df = df[(df["key"] != "") & (df["tp"] > 0)]
    df = df.loc[df.groupby(["set", "wl", "key", "cards"])["tp"].idxmax()]
    return _median_cells(df, "gpu", ["set", "wl"], "{}/{}", lambda s, *_: s)


def timed_benchmarks(paths: dict[str, Path] | None = None) -> pd.DataFrame:
    """Published times of one job in the measurement format (sources ``cosmos``, ``step3-attention``):
    throughput = 1 / time (``seconds`` or ``microseconds`` column), one workload per row name of the
    file (``cosmos/Cosmos-Predict2-2B-Text2Image``), ``gpus`` the job's card count. NVIDIA's Cosmos
    generation times (diffusion inference on one GPU, GB200 to H20 and DGX Spark; post-training steps
    on 8-32) and StepFun's Step-3 attention-layer times on 4 GPUs (H800, H20, A800)."""
    parts = []
    for source, path in (paths or TIMED_CSVS).items():
        df = pd.read_csv(path, dtype={"workload": str, "gpu": str}, keep_default_na=False)
        unit = next(c for c in TIME_UNITS if c in df.columns)
        df["tp"] = 1.0 / (df[unit].astype(float) * TIME_UNITS[unit])
        df["set"] = source
        parts.append(df)
    df = pd.concat(parts, ignore_index=True)
    df["cards"] = df["gpus"].astype(np.int64)
    df["key"] = _card_keys(df["gpu"])
    df = df[(df["key"] != "") & np.isfinite(df["tp"]) & (df["tp"] > 0)]
    return _median_cells(df, "gpu", ["set", "workload"], "{}/{}", lambda s, *_: s)


def ascend_benchmarks(path: Path = ASCEND_CSV) -> pd.DataFrame:
    """Huawei's README training tables (ModelZoo-PyTorch, DrivingSDK, MindSpeed-MM) in the measurement
    format (source ``ascend-modelzoo``): each model's throughput on Atlas A2 servers (Ascend 910B)
    beside its competitor GPU run (``竞品A``, read as an A100; docs/normalize.md says why), one
    workload per model, table and precision. A ``time`` row (ms or s per step, seconds for a fixed
    number of steps) is a rate of 1 / seconds; a per-card rate (``tokens/p/s``) is multiplied by the
    card count: the whole job's."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    value = df["value"].astype(float)
    seconds = np.where(df["unit"].str.contains(r"\bms\b", regex=True), value / 1000.0, value)
    df["tp"] = np.where(df["kind"] == "time", 1.0 / seconds, value)
    df["cards"] = df["cards"].astype(np.int64)
    df.loc[df["per_card"] == "yes", "tp"] *= df["cards"]
    named = (df["model"] + " " + df["table"]).str.split().str.join(" ")
    said = [p == "" or p.lower() in n.lower().split() for n, p in zip(named, df["precision"], strict=True)]
    df["wl"] = np.where(said, named, named + " " + df["precision"])
    df["key"] = _card_keys(df["card"])
    df = df[(df["key"] != "") & (df["tp"] > 0)]
    return _median_cells(df, "card", ["wl"], "ascend-modelzoo/{}", lambda *_: "ascend-modelzoo")


HELD_OUT_SOURCES = (
    "ascend-modelzoo",
    "inference-v2.1",
    "inference-v2.1-server",
    "inference-v3.0",
    "inference-v3.0-server",
    "inference-v3.1",
    "inference-v3.1-server",
    "inference-v4.0",
    "inference-v4.0-server",
    "inference-v4.1",
    "inference-v4.1-server",
    "inference-v5.0",
    "inference-v5.0-server",
    "inference-v5.1",
    "inference-v5.1-interactive",
    "inference-v5.1-server",
    "inference-v6.0",
    "inference-v6.0-interactive",
    "inference-v6.0-server",
    "inference-v6.1",
    "inference-v6.1-interactive",
    "inference-v6.1-server",
    "lambda-pytorch",
    "lambda-tensorflow",
    "llamacpp-llama2",
    "llamacpp-llama3",
    "cosmos",
    "step3-attention",
    "training-v3.0",
    "training-v5.0",
    "training-v5.1",
    "training-v6.0",
    "trtllm-v0.13",
    "trtllm-v0.21",
    "trtllm-v1.2",
)
# the held-out sets the shipped priors are calibrated on (each still evaluated with priors calibrated
# without it); every other held-out set is a test set, so a set added to HELD_OUT_SOURCES is one too
CALIBRATION_SOURCES = (
    "inference-v4.1",
    "inference-v5.1",
    "lambda-pytorch",
    "lambda-tensorflow",
    "training-v5.1",
    "training-v6.0",
)
# held-out sets kept out of every calibration: evaluated, never learned from
TEST_ONLY_SOURCES = tuple(s for s in HELD_OUT_SOURCES if s not in CALIBRATION_SOURCES)


def calibration_measurements(exclude: tuple[str, ...] = ()) -> pd.DataFrame:
    """Every real measurement the project has (the shared ones and ``data/``'s, with ``source``),
    less the sets named in ``exclude`` and the test sets (``TEST_ONLY_SOURCES``): what the priors
    are calibrated on."""
    exclude = (*exclude, *TEST_ONLY_SOURCES)
    parts = [shared_measurements()]
    if set(HELD_OUT_SOURCES) - set(exclude):
        parts.append(held_out_measurements())
    df = pd.concat(parts, ignore_index=True)
    return df[~df["source"].isin(exclude)].reset_index(drop=True)


def held_out_measurements() -> pd.DataFrame:
    """Everything in ``data/`` (every MLPerf Inference file, one set per round and scenario; MLPerf
    Training v5.0, v5.1 and v6.0 at 8 accelerators, v3.0 on one node of 2-10; Lambda's PyTorch and TensorFlow benchmarks;
    llama.cpp's and TensorRT-LLM's tokens/s), with ``source`` (``HELD_OUT_SOURCES`` names them all): the set
    ``normalize --evaluate --held-out`` runs on."""
    files = _inference_files()
    runs = [TRAINING_V30_RUNS_CSV, TRAINING_V50_RUNS_CSV, TRAINING_RUNS_CSV, TRAINING_V60_RUNS_CSV]
    every = [*runs, *LAMBDA_CSVS, *LAMBDA_TF_CSVS, *LLAMACPP_CSVS, *TRTLLM_CSVS, *TIMED_CSVS.values(), ASCEND_CSV]
    if not files or not all(p.exists() for p in every):
        raise InputError("held-out data", f"not found under {INFERENCE_DIR.parent} (it ships with the source tree)")
    training = [mlperf_training_held_out(p) for p in runs]
    lam = [lambda_benchmarks(), lambda_benchmarks(LAMBDA_TF_CSVS)]
    llm = [llamacpp_benchmarks(), trtllm_benchmarks()]
    parts = [mlperf_inference(files), *training, *lam, *llm, timed_benchmarks(), ascend_benchmarks()]
    return pd.concat(parts, ignore_index=True)


def as_card_rates(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as an instance holds it: each workload is one job of a fixed size, its ``throughput``
    entries a rate per card (spec section 3). Each workload keeps the card count it was measured at on
    the most card types (ties: the larger count), its rows there divided by the count, at ``cards`` 1;
    its rows at other counts are dropped. ``normalize --evaluate --as-rates`` scores the rate table's
    model (``table.rate_table``) on such rows."""
    pos = df[df["throughput"] > 0]
    types = pos.groupby(["workload", "cards"])["card_type"].nunique().reset_index(name="types")
    best = types.sort_values(["workload", "types", "cards"]).groupby("workload").tail(1)[["workload", "cards"]]
    out = df.merge(best, on=["workload", "cards"], how="inner")
    out["throughput"] = out["throughput"] / out["cards"]
    out["cards"] = 1
    return out[list(df.columns)].reset_index(drop=True)
