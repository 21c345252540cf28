"""The planner held against a real GPU: its predictions beside the same work measured on the GPU at hand.

Two halves, so the GPU side needs only what a lent GPU machine has (its own torch, the standard library):

- **measure** (on the GPU; imports only torch, the standard library and this checkout's `runner/`):
  (a) the bench (`python -m runner.bench`, the code `planner bench --device cuda` runs) on the calibration and
  held-out specs of `make bench-published` that fit one GPU, at several precisions (the jobs are prepared here
  from the specs: benchmarks/data/device-jobs.json, checked current by the tests);
  (b) the example training scripts (examples/scripts/gpt.py at GPT-2 124M in bf16, TF32 and fp32, a small GPT,
  the convnet) run for real on the GPU under the launcher, which synchronises CUDA at each step and reads the
  allocator's peak, and traced again on the stand-in GPU (runner/standin.py) describing that same GPU;
  (c) the GPU's name, clocks, driver and software. Every result is written to DIR/device-measured.json the
  moment it arrives.
- **report** (where the planner is installed): each case predicted for that GPU by the planner — a spec through the
  device model (planner/core/predict/gpu.py), a script from its stand-in trace (planner/core/predict/trace.py) —
  and written beside the measurement as one CSV (columns: CSV_COLUMNS; docs: benchmarks/README.md).

    make bench-device                                   # on a CUDA machine: measure, then report (if the planner imports)
    make bench-device-dry                               # no GPU: the whole path on this CPU, tiny cases (in make test)
    python benchmarks/device.py measure --out DIR       # the GPU half alone (python3 there is enough)
    python benchmarks/device.py report DIR/device-measured.json [--csv FILE]
    python benchmarks/device.py jobs                    # rewrite benchmarks/data/device-jobs.json from the specs

A dry run measures on this CPU and predicts for the GPU the report is asked for (default H200); its CSV leaves the
ratio empty (a CPU's step is no GPU's truth). Exit 1 when a case failed to measure; 2 on bad input (no GPU).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

JOBS = ROOT / "benchmarks" / "data" / "device-jobs.json"
RESULTS = ROOT / "benchmarks" / "results"
BENCH_SECONDS = 4.0  # each spec's bench budget on the GPU (the bench warms up first)
SCRIPT_SECONDS = (
    6.0  # each script's real run under the launcher (stopped at MAX_STEPS before that if faster)
)
MAX_STEPS = 60
STANDIN_STEPS = 8  # as planner/service/standin_trace.STANDIN_STEPS
CAP_SECONDS = 150.0  # any one case, start-up included
BUDGET_SECONDS = 450.0  # no case starts past this (the check fits 8 minutes of a lent GPU)

# (spec, precisions): the calibration (ResNet-50, BERT-large) and held-out (ResNet-9) specs of bench-published,
# and two small ones where launch overhead, not arithmetic, sets the step
SPEC_CASES: list[tuple[str, tuple[str, ...]]] = [
    ("resnet50-imagenet", ("fp32", "tf32", "bf16")),
    ("bert-large-squad", ("fp32", "tf32", "bf16")),
    ("resnet9-cifar10", ("fp32", "fp16")),
    ("tiny-transformer", ("fp32",)),
    ("small-cnn", ("fp32",)),
]
# the same specs with their data already on the GPU (data.location: device): what the host-to-device copy costs
ON_GPU = [("resnet50-imagenet", ("bf16",)), ("small-cnn", ("fp32",))]
GPT2 = [
    "--layers",
    "12",
    "--width",
    "768",
    "--heads",
    "12",
    "--block",
    "1024",
    "--batch",
    "16",
    "--vocab",
    "50304",
]
SCRIPT_CASES: list[
    tuple[str, str, list[str]]
] = [  # (case, script under the checkout, its arguments)
    (
        "gpt2-124m auto",
        "examples/scripts/gpt.py",
        [*GPT2, "--steps", "100"],
    ),  # bf16 autocast + TF32 where the GPU has them
    ("gpt2-124m tf32", "examples/scripts/gpt.py", [*GPT2, "--precision", "tf32", "--steps", "100"]),
    ("gpt2-124m fp32", "examples/scripts/gpt.py", [*GPT2, "--precision", "fp32", "--steps", "100"]),
    ("gpt small auto", "examples/scripts/gpt.py", ["--steps", "400"]),
    (
        "convnet w64",
        "examples/scripts/convnet.py",
        ["--samples", "20000", "--width", "64", "--epochs", "3"],
    ),
]
# The script issue's development scripts, when a checkout holds them (never committed: fetch them into this ignored
# folder, with their data, and carry it to the GPU machine): karpathy/nanoGPT with shakespeare_char's .bin files
DEV = ROOT / "benchmarks" / "dev-scripts"
NANOGPT = [
    "config/train_shakespeare_char.py",
    "--eval_iters=2",
    "--max_iters=300",
    "--log_interval=50",
]
DEV_CASES: list[tuple[str, str, list[str]]] = [
    (
        "nanoGPT shakespeare-char eager",
        "benchmarks/dev-scripts/nanoGPT/train.py",
        [*NANOGPT, "--compile=False"],
    ),
    ("nanoGPT shakespeare-char compiled", "benchmarks/dev-scripts/nanoGPT/train.py", NANOGPT),
]
DRY_SPECS = [("small-cnn", ("fp32",))]
DRY_SCRIPTS = [
    (
        "gpt tiny",
        "examples/scripts/gpt.py",
        [
            "--layers",
            "1",
            "--width",
            "64",
            "--heads",
            "2",
            "--block",
            "32",
            "--batch",
            "4",
            "--vocab",
            "256",
            "--steps",
            "40",
        ],
    )
]
CSV_COLUMNS = [
    "case",
    "kind",
    "precision",
    "batch",
    "predicted_ms",
    "predicted_low_ms",
    "predicted_high_ms",
    "measured_ms",
    "measured_half_pct",
    "ratio",
    "inside",
    "predicted_peak_gib",
    "measured_peak_gib",
    "gpu",
    "gpu_catalog",
    "sm_clock_max_mhz",
    "memory_clock_max_mhz",
    "driver",
    "torch",
    "cuda",
    "cudnn",
    "h2d_pageable_gbps",
    "h2d_pinned_gbps",
    "launch_us",
    "bf16_matmul_tflops",
    "date",
    "note",
]


# ------------------------------------------------------------------------------------- the jobs (here)


def spec_jobs(
    specs: list[tuple[str, tuple[str, ...]]] = SPEC_CASES, location: str | None = None
) -> list[dict[str, Any]]:
    """The bench job of each (spec, precision), as `planner bench --device cuda` makes it (planner/service/bench.
    make_job), with a custom model's folder relative to the checkout so the jobs travel."""
    from planner.service.bench import BenchOptions, make_job
    from planner.workload.footprint import footprint, layers_of
    from planner.workload.spec import load_spec, parse_spec

    out = []
    for name, precisions in specs:
        base = load_spec(ROOT / "examples" / f"{name}.yaml").to_job()
        for precision in precisions:
            data = json.loads(json.dumps(base))
            data["train"]["precision"] = precision
            data["train"].pop("gpus", None)
            if location:
                data["data"]["location"] = location
            spec = parse_spec(data)
            job = make_job(
                spec,
                BenchOptions(device="cuda", seconds=BENCH_SECONDS),
                footprint(spec, layers_of(spec) or []),
            ).runner_job()
            model = job["spec"]["model"]
            if model.get("path"):
                model["path"] = Path(model["path"]).resolve().relative_to(ROOT).as_posix()
            out.append(
                {
                    "case": f"{name} {precision}{' data-on-gpu' if location == 'device' else ''}",
                    "job": job,
                }
            )
    return out


def write_jobs() -> int:
    JOBS.parent.mkdir(parents=True, exist_ok=True)
    jobs = {"dry": spec_jobs(DRY_SPECS), "cases": spec_jobs() + spec_jobs(ON_GPU, "device")}
    JOBS.write_text(json.dumps(jobs, indent=1) + "\n")
    print(f"wrote {JOBS.relative_to(ROOT)}")
    return 0


# ---------------------------------------------------------------------------------- measure (the GPU)


def gpu_facts(dry: bool) -> dict[str, Any]:
    """The GPU measured on (torch's view of it), its clocks and driver (nvidia-smi, where there is one), the software."""
    import torch

    facts: dict[str, Any] = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda or "",
        "cudnn": str(torch.backends.cudnn.version() or ""),
        "python": platform.python_version(),
        "date": dt.date.today().isoformat(),
        "dry": dry,
    }
    if dry:
        return {**facts, "gpu": "cpu (dry run)", "standin": {}}
    props = torch.cuda.get_device_properties(0)
    facts.update(
        gpu=torch.cuda.get_device_name(0),
        capability=list(torch.cuda.get_device_capability(0)),
        memory_bytes=int(props.total_memory),
        sm_count=int(props.multi_processor_count),
    )
    facts["standin"] = {
        "name": facts["gpu"],
        "capability": facts["capability"],
        "memory_bytes": facts["memory_bytes"],
        "sm_count": facts["sm_count"],
    }
    try:
        facts.update(machine_rates())
    except Exception as exc:  # noqa: BLE001 - the cases still run; the report says the rates are missing
        facts["machine_rates"] = f"failed: {type(exc).__name__}: {exc}"
    smi = shutil.which("nvidia-smi")
    if smi:
        query = "driver_version,clocks.max.sm,clocks.max.mem,power.limit"
        try:
            line = subprocess.run(
                [smi, f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=30,
            ).stdout.splitlines()[0]
            driver, sm, mem, power = (x.strip() for x in line.split(","))
            facts.update(
                driver=driver, sm_clock_max_mhz=sm, memory_clock_max_mhz=mem, power_limit_w=power
            )
        except (IndexError, ValueError, subprocess.SubprocessError, OSError) as exc:
            facts["nvidia_smi"] = f"unreadable: {exc}"
    return facts


def machine_rates() -> dict[str, float]:
    """What sets the step of a small or copy-bound workload here: host-to-device copies (pageable and pinned,
    GB/s), an eager op's launch from Python (us, CPU-bound), and a large bf16 matmul (TFLOP/s)."""
    import torch

    def timed(work: Any, n: int) -> float:
        work()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(n):
            work()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / n

    size = 256 * 2**20
    device = torch.empty(size, dtype=torch.uint8, device="cuda")
    pageable, pinned = (
        torch.empty(size, dtype=torch.uint8),
        torch.empty(size, dtype=torch.uint8, pin_memory=True),
    )
    one = torch.zeros(1, device="cuda")
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    out = {
        "h2d_pageable_gbps": size / timed(lambda: device.copy_(pageable), 5) / 1e9,
        "h2d_pinned_gbps": size / timed(lambda: device.copy_(pinned, non_blocking=True), 5) / 1e9,
        "launch_us": timed(lambda: one.add_(1), 2000) * 1e6,
        "bf16_matmul_tflops": 2 * 8192**3 / timed(lambda: a @ a, 10) / 1e12,
    }
    return {k: round(v, 2) for k, v in out.items()}  # the buffers go with this frame


# GEMMs (M, N, K) of the scripts' steps the device model misses most (issue 38: eager bf16 transformers at d 384-768,
# an unpadded vocabulary), their weight-gradient shapes, and square ones for scale: measured alone on the GPU, so a
# shape term of the model (tile and wave quantization, K, alignment) can be fitted to GEMMs, not to the scripts it
# is scored on.
GEMM_SHAPES = [
    (8192, 768, 768),
    (8192, 2304, 768),
    (8192, 3072, 768),
    (8192, 768, 3072),
    (8192, 50257, 768),
    (8192, 50304, 768),
    (768, 768, 8192),
    (768, 3072, 8192),
    (16384, 384, 384),
    (16384, 1152, 384),
    (16384, 1536, 384),
    (16384, 384, 1536),
    (16384, 65, 384),
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
]
GEMM_PRECISIONS = ("bf16", "tf32", "fp32")


def gemm_sweep(dry: bool) -> list[dict[str, Any]]:
    """Each GEMM_SHAPES matmul at each precision, timed alone (median of 5 rounds of 10 after a warm-up): ms and
    TFLOP/s. Dry: on this CPU, each dimension / 16, fp32 and bf16 (the code path, not a GPU's figure)."""
    import torch

    device = "cpu" if dry else "cuda"
    sync = (lambda: None) if dry else torch.cuda.synchronize
    rows = []
    before = torch.backends.cuda.matmul.allow_tf32
    try:
        for m, n, k in GEMM_SHAPES:
            if dry:
                m, n, k = max(m // 16, 1), max(n // 16, 1), max(k // 16, 1)
            for precision in GEMM_PRECISIONS if not dry else ("fp32", "bf16"):
                dtype = torch.bfloat16 if precision == "bf16" else torch.float32
                torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
                a, b = (
                    torch.randn(m, k, device=device, dtype=dtype),
                    torch.randn(k, n, device=device, dtype=dtype),
                )
                a @ b
                sync()
                rounds = []
                for _ in range(5):
                    start = time.perf_counter()
                    for _ in range(10):
                        a @ b
                    sync()
                    rounds.append((time.perf_counter() - start) / 10)
                seconds = sorted(rounds)[2]
                rows.append(
                    {
                        "m": m,
                        "n": n,
                        "k": k,
                        "precision": precision,
                        "ms": float(f"{seconds * 1e3:.4g}"),
                        "tflops": float(f"{2 * m * n * k / seconds / 1e12:.4g}"),
                    }
                )  # 4 figures: a tiny dry GEMM too
                del a, b
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before
    return rows


def predict_gemm(row: dict[str, Any], gpu: Any) -> float | None:
    """The device model's time of one GEMM alone (planner/core/predict/gpu.py: a gemm layer of these FLOPs and bytes,
    one kernel), in seconds; None when the GPU lacks the precision's figures."""
    from planner.core.predict.gpu import layer_gpu_seconds
    from planner.workload.footprint import FP32, Layer

    m, n, k = row["m"], row["n"], row["k"]
    size = 2 if row["precision"] == "bf16" else 4
    layer = Layer(
        "gemm",
        params=0,
        forward_flops=2.0 * m * n * k,
        activation_elems=0.0,
        kernels=1,
        op="gemm",
        backward_flops=0.0,
        backward_kernels=0,
        moved_elems=0.0,
        fixed_elems=(m * k + k * n + m * n) * size / FP32,
    )
    timed = layer_gpu_seconds(layer, gpu, 1, row["precision"])
    return timed[0] if isinstance(timed, tuple) else None


def bench_spec(case: dict[str, Any], device: str, seconds: float, tmp: Path) -> dict[str, Any]:
    """One spec's bench on `device`, as `planner bench` runs it: runner.bench in a child process."""
    from runner.local import child_env

    job = json.loads(json.dumps(case["job"]))
    job.update(device=device, seconds=seconds)
    model = job["spec"]["model"]
    if model.get("path"):
        model["path"] = str(ROOT / model["path"])
    job_file, result_file = tmp / "job.json", tmp / "result.json"
    job_file.write_text(json.dumps(job))
    result_file.unlink(missing_ok=True)
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "runner.bench", str(job_file), str(result_file)],
            cwd=ROOT,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=CAP_SECONDS,
        )
        tail = (done.stderr or "")[-1500:]
    except subprocess.TimeoutExpired:
        tail = f"stopped at its {CAP_SECONDS:g} s cap"
    result = (
        json.loads(result_file.read_text())
        if result_file.is_file()
        else {"status": "error", "message": tail}
    )
    return {
        "kind": "spec",
        "case": case["case"],
        "job": case["job"],
        "result": result,
        "seconds": time.perf_counter() - start,
        "stderr_tail": tail if result.get("status") != "ok" else "",
    }


def run_script_case(
    case: tuple[str, str, list[str]],
    standin: dict[str, Any] | None,
    tmp: Path,
    seconds: float = SCRIPT_SECONDS,
    max_steps: int = MAX_STEPS,
) -> dict[str, Any]:
    """One example script under the launcher: for real (`standin` None) or traced on the stand-in GPU it describes."""
    from runner.local import run_script

    name, script, args = case
    start = time.perf_counter()
    if standin is None:
        done = run_script(
            ROOT / script,
            args,
            seconds,
            tmp,
            min_steps=20,
            cap_seconds=CAP_SECONDS,
            max_steps=max_steps,
        )
    else:
        done = run_script(
            ROOT / script,
            args,
            2.0,
            tmp,
            min_steps=STANDIN_STEPS,
            cap_seconds=CAP_SECONDS,
            standin=standin,
            max_steps=STANDIN_STEPS,
        )
    ok = bool(done.result) and done.result.get("status") == "ok"
    return {
        "kind": "script",
        "case": name,
        "script": script,
        "args": args,
        "standin": standin is not None,
        "result": done.result,
        "seconds": time.perf_counter() - start,
        "stderr_tail": "" if ok else (done.stderr_tail or done.stdout_tail or "")[-1500:],
    }


def measure(out: Path, dry: bool, cases: str | None = None, standin_only: bool = False) -> Path:
    """Every case measured (and each script traced on the stand-in), journaled to OUT/device-measured.json as it lands."""
    import tempfile

    import torch

    if not dry and not torch.cuda.is_available():
        raise SystemExit(2)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "device-measured.json"
    prepared = json.loads(JOBS.read_text())
    facts = gpu_facts(dry)
    doc: dict[str, Any] = {"facts": facts, "cases": []}

    def land(entry: dict[str, Any]) -> None:
        doc["cases"].append(entry)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc))
        os.replace(tmp, path)
        r = entry["result"] or {}
        what = f"{entry['kind']} {entry['case']}{' (stand-in)' if entry.get('standin') else ''}"
        print(
            f"  {what:<40} {r.get('status', 'no result'):<8} {entry['seconds']:6.1f} s", flush=True
        )

    device = "cpu" if dry else "cuda"
    wanted = re.compile(cases) if cases else None
    deadline = time.monotonic() + BUDGET_SECONDS

    def skipped(kind: str, name: str) -> dict[str, Any]:
        return {
            "kind": kind,
            "case": name,
            "result": {
                "status": "skipped",
                "message": f"not started: past the check's {BUDGET_SECONDS:g} s budget",
            },
            "seconds": 0.0,
            "stderr_tail": "",
        }

    print(
        f"measuring on {facts['gpu']} (torch {facts['torch']}, CUDA {facts['cuda'] or '-'})",
        flush=True,
    )
    if not standin_only and not wanted:
        try:
            start = time.perf_counter()
            facts["gemm"] = gemm_sweep(dry)
            print(
                f"  {'gemm sweep':<40} {'ok':<8} {time.perf_counter() - start:6.1f} s", flush=True
            )
        except Exception as exc:  # noqa: BLE001 - the cases still run; the report says the sweep is missing
            facts["gemm"] = f"failed: {type(exc).__name__}: {exc}"
        path.write_text(json.dumps(doc))  # journaled as it lands, as the cases are
    with tempfile.TemporaryDirectory(prefix="bench-device-") as tmp:
        for case in prepared["dry" if dry else "cases"]:
            if standin_only or (wanted and not wanted.search(case["case"])):
                continue
            if time.monotonic() > deadline:
                land(skipped("spec", case["case"]))
                continue
            land(bench_spec(case, device, 0.5 if dry else BENCH_SECONDS, Path(tmp)))
        dev = [c for c in DEV_CASES if (ROOT / c[1]).is_file()]
        for script_case in DRY_SCRIPTS if dry else SCRIPT_CASES + dev:
            if wanted and not wanted.search(script_case[0]):
                continue
            if time.monotonic() > deadline:
                land(skipped("script", script_case[0]))
                continue
            if not standin_only:
                land(
                    run_script_case(
                        script_case,
                        None,
                        Path(tmp),
                        1.0 if dry else SCRIPT_SECONDS,
                        30 if dry else MAX_STEPS,
                    )
                )
            land(run_script_case(script_case, facts["standin"], Path(tmp)))
    return path


# ----------------------------------------------------------------------------------- report (here)


def catalog_gpu(device_name: str, gpus: dict[str, Any]) -> str | None:
    """The catalog GPU a device name stands for ('NVIDIA H200' -> H200, 'NVIDIA A100-SXM4-80GB' -> A100-80GB)."""
    name = device_name.upper().replace("NVIDIA", "").replace("TESLA", "").strip()
    if "A100" in name and "80GB" in name.replace(" ", ""):
        return "A100-80GB" if "A100-80GB" in gpus else "A100"
    for key in sorted(gpus, key=len, reverse=True):
        if key.upper() in name.replace("-", " ").split() or name.startswith(key.upper()):
            return key
    return None


def _ms(x: float | None) -> str:
    return "" if x is None or not math.isfinite(x) else f"{x * 1000:.3f}"


def _gib(x: float | None) -> str:
    return "" if not x else f"{x / 2**30:.2f}"


def predict_spec(entry: dict[str, Any], gpu: Any) -> dict[str, Any]:
    """The device model's step for the bench's job on `gpu` (as bench-published scores it)."""
    from planner.core.predict import predict_gpu
    from planner.report.remarks import word
    from planner.workload.footprint import layer_from_row, merge_identical, sample_bytes
    from planner.workload.spec import parse_spec
    from runner.bench.introspect import describe

    job = json.loads(json.dumps(entry["job"]))
    if job["spec"]["model"].get("path"):
        job["spec"]["model"]["path"] = str(ROOT / job["spec"]["model"]["path"])
    spec = parse_spec(job["spec"])
    layers = merge_identical([layer_from_row(r) for r in describe(job["spec"])])
    batch = int(job.get("batch_size") or spec.batch_size)
    host = batch * sample_bytes(spec) if spec.data.location == "host" else 0.0
    pred = predict_gpu(layers, gpu, batch, spec.train.precision, spec.train.optimizer, host)
    return {
        "precision": spec.train.precision,
        "batch": batch,
        "step": pred.step_seconds,
        "low": pred.low,
        "high": pred.high,
        "note": word(pred.note) if pred.note is not None else "",
    }


def predict_script(entry: dict[str, Any], gpu: Any) -> dict[str, Any]:
    """The planner's GPU row for the script from its stand-in trace (planner/core/script.script_candidates' path)."""
    from planner.core.predict.trace import predict_trace_gpu
    from planner.core.script import ScriptRun, traced_step
    from planner.report.remarks import word

    on = traced_step(ScriptRun.from_json(entry["result"]))
    if on is None:
        return {"note": "the stand-in traced no step"}
    pred = predict_trace_gpu(
        on.trace, on.host_seconds, on.relative, gpu, 1.0, host_here=on.host_seconds
    )
    return {
        "precision": on.trace.precision,
        "step": pred.step_seconds,
        "low": pred.low,
        "high": pred.high,
        "peak": on.trace.peak_bytes,
        "note": word(pred.note) if pred.note is not None else "",
    }


def merged(paths: list[Path]) -> dict[str, Any]:
    """Several measurements of one GPU as one: a later file's case (and its facts) replaces an earlier one's."""
    doc: dict[str, Any] = {"facts": {}, "cases": []}
    for path in paths:
        more = json.loads(path.read_text())
        doc["facts"] = {**doc["facts"], **more["facts"]}
        keys = {(e["kind"], e["case"], bool(e.get("standin"))) for e in more["cases"]}
        doc["cases"] = [
            e for e in doc["cases"] if (e["kind"], e["case"], bool(e.get("standin"))) not in keys
        ]
        doc["cases"] += more["cases"]
    return doc


def summary_table(facts: dict[str, Any], key: str, rows: list[dict[str, Any]]) -> str:
    """The report as Markdown: the GPU and software, the machine's rates, one row a case, the summary."""
    out = [
        f"{facts['gpu']} ({key} in the catalog), torch {facts['torch']}, CUDA {facts.get('cuda') or '-'}, "
        f"driver {facts.get('driver', '-')}, {facts['date']}",
        "",
    ]
    if "launch_us" in facts:
        out += [
            f"Host to GPU {facts['h2d_pageable_gbps']} GB/s pageable, {facts['h2d_pinned_gbps']} pinned; an eager op "
            f"{facts['launch_us']} us from Python; bf16 matmul {facts['bf16_matmul_tflops']} TFLOP/s.",
            "",
        ]
    out += [
        "| case | precision | predicted (interval) | measured | ratio | inside | GPU memory predicted / measured |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for r in rows:
        interval = (
            f" ({r['predicted_low_ms']}-{r['predicted_high_ms']})"
            if r.get("predicted_low_ms")
            else ""
        )
        memory = (
            f"{r['predicted_peak_gib']} / {r.get('measured_peak_gib') or '-'} GiB"
            if r.get("predicted_peak_gib")
            else ""
        )
        measured = f"{r['measured_ms']} ms" if r.get("measured_ms") else r.get("note", "")
        predicted = f"{r['predicted_ms']} ms{interval}" if r.get("predicted_ms") else ""
        out.append(
            f"| {r['case']} | {r.get('precision', '')} | {predicted} | {measured} | {r.get('ratio', '')} | "
            f"{r.get('inside', '')} | {memory} |"
        )
    ratios = [float(r["ratio"]) for r in rows if r.get("ratio")]
    if ratios:
        factors = [max(x, 1 / x) for x in ratios]
        inside = [r["inside"] == "true" for r in rows if r.get("inside")]
        out += [
            "",
            f"{len(ratios)} cases: median factor {statistics.median(factors):.2f}, worst {max(factors):.2f}; "
            f"measured inside the predicted interval in {sum(inside)} of {len(inside)}.",
        ]
    return "\n".join(out) + "\n"


def report(measured: list[Path], csv_path: Path | None, gpu_name: str | None = None) -> int:
    from planner.core.script import ScriptRun, steady_step
    from planner.errors import InputError
    from pricing.catalog import gpu_specs_by_name

    doc = merged(measured)
    facts = doc["facts"]
    gpus = gpu_specs_by_name()
    key = gpu_name or (None if facts.get("dry") else catalog_gpu(facts["gpu"], gpus)) or "H200"
    if key not in gpus:
        print(
            f"--gpu {key}: not in the catalog's GPUs ({', '.join(sorted(gpus))})", file=sys.stderr
        )
        return 2
    gpu = gpus[key]
    rows: list[dict[str, Any]] = []
    failed = 0
    standins = {e["case"]: e for e in doc["cases"] if e["kind"] == "script" and e.get("standin")}
    for entry in doc["cases"]:
        if entry.get("standin"):
            continue
        result = entry["result"] or {}
        row: dict[str, Any] = {
            "case": entry["case"],
            "kind": entry["kind"],
            "gpu": facts["gpu"],
            "gpu_catalog": key,
            **{
                k: facts.get(k, "")
                for k in (
                    "sm_clock_max_mhz",
                    "memory_clock_max_mhz",
                    "driver",
                    "torch",
                    "cuda",
                    "cudnn",
                    "date",
                    "h2d_pageable_gbps",
                    "h2d_pinned_gbps",
                    "launch_us",
                    "bf16_matmul_tflops",
                )
            },
        }
        if result.get("status") != "ok":
            failed += 1
            rows.append(
                {
                    **row,
                    "note": f"not measured: {result.get('message') or entry.get('stderr_tail', '')[-200:]}",
                }
            )
            continue
        if entry["kind"] == "spec":
            pred = predict_spec(entry, gpu)
            step = result.get("step_seconds")
            low, high = result.get("step_seconds_ci_low"), result.get("step_seconds_ci_high")
            half = 100 * (high - low) / 2 / step if step and low and high else None
            peak = None
        else:
            traced = standins.get(entry["case"])
            pred = (
                predict_script(traced, gpu)
                if traced and (traced["result"] or {}).get("status") == "ok"
                else {
                    "note": "the stand-in trace failed: "
                    + (traced or {}).get("stderr_tail", "")[-200:]
                }
            )
            try:
                step, rel = steady_step(ScriptRun.from_json(result))
                half = 100 * rel
            except InputError as exc:
                step, half = None, None
                pred["note"] = "; ".join(x for x in (pred.get("note", ""), str(exc)) if x)
            peak = result.get("cuda_peak_bytes")
        p = pred.get("step")
        dry = facts.get("dry")
        row.update(
            precision=pred.get("precision", ""),
            batch=pred.get("batch", ""),
            predicted_ms=_ms(p),
            predicted_low_ms=_ms(pred.get("low")),
            predicted_high_ms=_ms(pred.get("high")),
            measured_ms=_ms(step),
            measured_half_pct="" if half is None else f"{half:.1f}",
            ratio="" if dry or not p or not step else f"{p / step:.3f}",
            inside=""
            if dry or not step or pred.get("low") is None
            else str(pred["low"] <= step <= pred["high"]).lower(),
            predicted_peak_gib=_gib(pred.get("peak")),
            measured_peak_gib=_gib(peak),
            note=pred.get("note", ""),
        )
        rows.append(row)
    if csv_path is None:
        csv_path = measured[-1].with_suffix(".csv")
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, CSV_COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k, "") for k in CSV_COLUMNS})
    text = summary_table(facts, key, rows) + gemm_table(facts, gpu)
    print("\n" + text)
    csv_path.with_suffix(".md").write_text(
        f"<!-- generated by: python benchmarks/device.py report {' '.join(p.name for p in measured)}"
        " -->\n" + text
    )
    print(f"wrote {csv_path} and {csv_path.with_suffix('.md').name}")
    return 1 if failed else 0


def gemm_table(facts: dict[str, Any], gpu: Any) -> str:
    """The GEMM sweep beside the device model's time for each (Markdown), or why there is none."""
    sweep = facts.get("gemm")
    if not isinstance(sweep, list):
        return f"\n\nGEMM sweep: {sweep or 'not measured (an older check)'}\n"
    out = [
        "",
        "",
        "GEMMs alone (median of 5 x 10): measured against the device model's time for one GEMM of these FLOPs "
        "and bytes"
        + (" (dry run: this CPU, dimensions / 16; no ratio)" if facts.get("dry") else ""),
        "",
        "| M x N x K | precision | measured ms | TFLOP/s | predicted ms | predicted / measured |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in sweep:
        predicted = predict_gemm(row, gpu)
        ratio = "" if facts.get("dry") or not predicted else f"{predicted * 1e3 / row['ms']:.2f}"
        out.append(
            f"| {row['m']} x {row['n']} x {row['k']} | {row['precision']} | {row['ms']} | {row['tflops']} | "
            f"{'' if predicted is None else f'{predicted * 1e3:.4f}'} | {ratio} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="no GPU: measure on this CPU (tiny cases), report, check",
    )
    sub = parser.add_subparsers(dest="command")
    m = sub.add_parser(
        "measure", help="the GPU half: measure every case (torch and the standard library only)"
    )
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--dry-run", action="store_true")
    m.add_argument("--cases", metavar="REGEX", help="only the cases whose name matches")
    m.add_argument(
        "--standin-only", action="store_true", help="only the scripts' traces on the stand-in GPU"
    )
    r = sub.add_parser("report", help="predict each measured case with the planner; write the CSV")
    r.add_argument(
        "measured",
        type=Path,
        nargs="+",
        help="measurements of one GPU; a later file's cases replace an earlier's",
    )
    r.add_argument("--csv", type=Path)
    r.add_argument(
        "--gpu", help="the catalog GPU to predict (default: the one measured; H200 for a dry run)"
    )
    sub.add_parser("jobs", help=f"rewrite {JOBS.relative_to(ROOT)} from the specs")
    args = parser.parse_args(argv)
    if args.command == "jobs":
        return write_jobs()
    if args.command == "report":
        return report(args.measured, args.csv, args.gpu)
    dry = bool(args.dry_run)
    import torch

    if not dry and not torch.cuda.is_available():
        print(
            "bench-device: torch sees no CUDA GPU here; run it on a GPU machine, or `make bench-device-dry` for the "
            "dry run",
            file=sys.stderr,
        )
        return 2
    out = args.out if args.command == "measure" else Path(os.environ.get("OUT") or RESULTS)
    stamp = "dry" if dry else dt.date.today().isoformat()
    if args.command != "measure":
        out = out / f"device-{stamp}" if out == RESULTS else out
    path = measure(out, dry, getattr(args, "cases", None), getattr(args, "standin_only", False))
    if args.command == "measure":
        return 0
    try:
        import pydantic  # noqa: F401 - the planner's own dependency: here only where the planner is installed
    except ImportError:
        print(
            f"\nmeasured: {path}\nthe planner is not installed here: report where it is, with\n"
            f"  python benchmarks/device.py report {path}"
        )
        return 0
    return report([path], None)


if __name__ == "__main__":
    sys.exit(main())
