"""Run one bench job: pick the device, check memory, build the workload, measure, sweep. Design
notes: docs/reference/modules.md (runner/bench/run.py)."""

from __future__ import annotations

import datetime as dt
import gc
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import torch

from runner.bench.data import sample_bytes
from runner.bench.harness import InterruptedBench, interruption, measure, record, timer_for
from runner.bench.machine import (
    Busyness,
    available_memory,
    cpu_name,
    fit_threads,
    peak_rss_bytes,
    process_age_seconds,
)
from runner.bench.procfs import emulated_precision
from runner.bench.result import BenchResult
from runner.bench.workloads import WorkloadError, build

SWEEP_FACTORS = (0.25, 0.5, 1, 2, 4, 8, 16)
_OOM_TYPES: tuple[type[BaseException], ...] = tuple(
    t
    for t in (
        getattr(torch, "OutOfMemoryError", None),
        getattr(torch.cuda, "OutOfMemoryError", None),
        MemoryError,
    )
    if t
)


def is_oom(exc: BaseException) -> bool:
    if isinstance(exc, _OOM_TYPES):
        return True
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and (
        "out of memory" in text or "can't allocate memory" in text
    )


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise WorkloadError("device cuda: torch sees no CUDA GPU on this machine")
    return torch.device(name)


def _release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _sweep(
    job: dict[str, Any], device: torch.device, base_batch: int, seconds: float
) -> list[dict[str, Any]]:
    """Throughput at 1/4x to 16x the batch (advice). Each point measures like the bench, with the
    same slow-step rule within its own cap (3x its budget); a point that hit its cap ends the sweep:
    larger batches would only be slower per step."""
    points: list[dict[str, Any]] = []
    for factor in SWEEP_FACTORS:
        batch = max(1, round(base_batch * factor))
        try:
            workload = build(job, device, batch_size=batch)
            m = measure(
                timer_for(workload.step, device),
                budget_seconds=seconds,
                target=0.05,
                min_steps=5,
                hard_cap_seconds=3 * seconds,
            )
            s = m.stats
            usable = s.rel_half_width <= 1.0
            points.append(
                {
                    "factor": factor,
                    "batch_size": batch,
                    "status": "ok",
                    "step_seconds": s.mean,
                    "samples_per_second": batch / s.mean,
                    "steps_measured": s.n,
                    "interval_usable": usable,
                    "message": ""
                    if usable
                    else f"only {s.n} step(s) within the point's {3 * seconds:.0f} s: no usable interval",
                }
            )
            if m.stopped_because == "cap":
                break
        except Exception as exc:  # noqa: BLE001 - OOM is a result; anything else ends the sweep
            status = "does_not_fit" if is_oom(exc) else "error"
            points.append(
                {
                    "factor": factor,
                    "batch_size": batch,
                    "status": status,
                    "message": str(exc).splitlines()[0][:200],
                }
            )
            break
        finally:
            workload = None  # type: ignore[assignment]  # drop the last reference before the device is freed
            _release(device)
    return points


def train_job(
    job: dict[str, Any],
    result: BenchResult,
    device: torch.device,
    progress: Callable[[dict], None] | None = None,
) -> BenchResult:
    """`mode: train`: really train for `epochs` epochs (every step, no sampling), for `planner validate`."""
    spec = job["spec"]
    t0 = time.perf_counter()
    # a real run: every sample, materialised once
    workload = build(spec, device, whole_dataset=True)
    result.setup_seconds = time.perf_counter() - t0
    steps = workload.steps_per_epoch * int(job["epochs"])
    # 20 windows (fewer if few steps)
    ends = sorted({max(1, round(k * steps / 20)) for k in range(1, 21)}) if steps else []
    windows: list[float] = []
    t1 = last = time.perf_counter()
    done = 0
    for end in ends:
        for _ in range(end - done):
            workload.step()
        # 20 syncs in a whole run cost nothing, and make the windows true GPU time
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        now = time.perf_counter()
        windows.append((now - last) / (end - done))
        last, done = now, end
        if progress:
            progress({"event": "train", "steps": done, "of": steps, "seconds": now - t1})
    elapsed = time.perf_counter() - t1
    result.status, result.steps_measured, result.steps_per_epoch = (
        "ok",
        steps,
        workload.steps_per_epoch,
    )
    result.step_seconds = elapsed / steps if steps else None
    result.wall_seconds = elapsed
    result.step_seconds_windows = windows
    return result


def _new_result(job: dict[str, Any]) -> BenchResult:
    spec = job["spec"]
    return BenchResult(
        status="error",
        device="cpu",
        workload=spec.get("name", ""),
        torch_version=torch.__version__,
        precision=spec["train"].get("precision", "fp32"),
        batch_size=int(job.get("batch_size") or spec["train"]["batch_size"]),
        hostname=socket.gethostname(),
        started_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        process_start_seconds=process_age_seconds(),
        dataset_bytes=int(spec["data"]["samples"]) * sample_bytes(spec),
    )


def in_cpu_precision(job: dict[str, Any], result: BenchResult) -> dict[str, Any]:
    """The job as this CPU trains it: a 16-bit precision it has no units for in fp32 (`result` says so: its
    precision, and the remark); else the job unchanged."""
    emulated = emulated_precision(result.precision)
    if emulated is None:
        return job
    result.precision = "fp32"
    result.warnings.append(emulated)
    spec = job["spec"]
    return {**job, "spec": {**spec, "train": {**spec["train"], "precision": "fp32"}}}


def _does_not_fit(job: dict[str, Any], result: BenchResult, device: torch.device) -> bool:
    need, have = job.get("memory_estimate_bytes"), available_memory(device)
    result.memory_available_bytes = have
    if need and have and need > 0.95 * have:
        result.status = "does_not_fit"
        result.message = (
            f"does not fit at batch {result.batch_size}: training needs about {need / 2**30:.1f} GiB, "
            f"{have / 2**30:.1f} GiB available on {result.device_name}"
        )
        return True
    return False


def run_job(job: dict[str, Any], progress: Callable[[dict], None] | None = None) -> BenchResult:
    """The job's result; a bench an interruption notice stopped before it had steps enough to time is a failed one
    that says so (`interruption`: the notice)."""
    try:
        result = _run_job(job, progress)
    except InterruptedBench as exc:
        result = _new_result(job)
        result.device = (
            "cuda" if job.get("device", "auto") != "cpu" and torch.cuda.is_available() else "cpu"
        )
        result.message, result.interruption = str(exc), interruption() or "interrupted"
        if result.device == "cpu":
            in_cpu_precision(job, result)  # it trained as _run_job chose: said so here too
        return result
    # a precision trained in fp32 said first: it is why the step is not the spec's own
    result.warnings.sort(
        key=lambda w: not (isinstance(w, dict) and w.get("kind") == "emulated_here")
    )
    return result


def _run_job(job: dict[str, Any], progress: Callable[[dict], None] | None = None) -> BenchResult:
    started = time.perf_counter()
    if job.get("threads"):
        torch.set_num_threads(int(job["threads"]))
    result = _new_result(job)
    try:
        device = resolve_device(job.get("device", "auto"))
    except WorkloadError as exc:
        result.status, result.message = "invalid", str(exc)
        return result
    result.device = device.type
    result.device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else cpu_name()
    if device.type == "cpu":
        job = in_cpu_precision(job, result)
    fitted = None
    if device.type == "cpu" and not job.get("threads") and int(job.get("processes") or 1) == 1:
        # a busy machine: as many threads as CPUs free, or the step waits on the busy ones
        fitted = fit_threads()
    result.threads = torch.get_num_threads()
    if _does_not_fit(job, result, device):
        return result
    # under torchrun (runner/bench/distributed.py)
    if int(job.get("processes") or 1) > 1 and "RANK" in os.environ:
        from runner.bench.distributed import run_data_parallel

        result = run_data_parallel(job, result, device, progress)
        _record_peak_memory(result, device)
        result.wall_seconds = time.perf_counter() - started
        return result
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    try:
        if job.get("mode") == "train":
            return train_job(job, result, device, progress)
        _bench(job, result, device, progress)
        if fitted is not None and fitted["threads"] < fitted["cpus"]:
            result.warnings.append(
                {
                    "kind": "threads_fitted",
                    "threads": int(fitted["threads"]),
                    "free": float(fitted["free_cpus"]),
                    "cpus": int(fitted["cpus"]),
                    "bench": True,
                }
            )
    except WorkloadError as exc:
        result.status, result.message = "invalid", str(exc)
        return result
    except Exception as exc:  # noqa: BLE001
        if not is_oom(exc):
            raise
        result.status = "does_not_fit"
        result.message = f"does not fit at batch {result.batch_size}: out of memory on {result.device_name} ({str(exc).splitlines()[0][:160]})"
        return result
    finally:
        _release(device)
    # advice: not worth the instance's last minutes
    if job.get("sweep") and not result.interruption:
        if progress:
            progress({"event": "sweep"})
        result.sweep = _sweep(
            job["spec"], device, result.batch_size, max(1.0, float(job.get("seconds", 10.0)) / 4)
        )
    result.wall_seconds = time.perf_counter() - started
    return result


def _bench(
    job: dict[str, Any],
    result: BenchResult,
    device: torch.device,
    progress: Callable[[dict], None] | None,
) -> None:
    """Build the workload (its data: a bounded pool), measure it, and fill `result`."""
    t0 = time.perf_counter()
    workload = build(job["spec"], device, batch_size=job.get("batch_size"))
    result.setup_seconds = time.perf_counter() - t0
    result.steps_per_epoch = workload.steps_per_epoch
    pool = workload.data
    result.data_pool_samples, result.data_pool_bytes, result.data_pool_seconds = (
        pool.samples,
        pool.bytes,
        pool.seconds,
    )
    if progress:
        progress({"event": "built", "seconds": result.setup_seconds})
    busy = Busyness.begin()
    m = measure(
        timer_for(workload.step, device),
        budget_seconds=float(job.get("seconds", 10.0)),
        progress=progress,
    )
    busy.end()
    del workload  # its tensors go before the result is written
    record(result, m)
    result.load_average, result.cpus, result.steal_percent = (
        busy.load_average,
        busy.cpus,
        busy.steal_percent,
    )
    result.other_cpus = busy.other_cpus
    result.machine_busy = bool(busy.warnings())
    result.warnings[:0] = busy.warnings()
    _record_peak_memory(result, device)


def _record_peak_memory(result: BenchResult, device: torch.device) -> None:
    if device.type == "cuda":
        result.peak_memory_bytes, result.peak_memory_kind = (
            int(torch.cuda.max_memory_allocated(device)),
            "cuda_max_allocated",
        )
    else:
        result.peak_memory_bytes, result.peak_memory_kind = peak_rss_bytes(), "process_peak_rss"
