"""Run one bench job: pick the device, check memory, build the workload, measure, sweep.

SHIPPED TO THE INSTANCE: imports only torch and the standard library.

A job is a JSON object: {"spec": <WorkloadSpec.to_job()>, "device": "cpu"|"cuda"|"auto",
"seconds": budget, "sweep": bool, "memory_estimate_bytes": int|null, "threads": int|null}.
"""

from __future__ import annotations

import datetime as dt
import gc
import os
import platform
import socket
import time
from typing import Any, Callable

import torch

from runner.bench.harness import CpuTimer, CudaTimer, measure
from runner.bench.result import BenchResult
from runner.bench.workloads import WorkloadError, build

SWEEP_FACTORS = (0.25, 0.5, 1, 2, 4, 8, 16)
_OOM_TYPES: tuple[type[BaseException], ...] = tuple(
    t for t in (getattr(torch, "OutOfMemoryError", None), getattr(torch.cuda, "OutOfMemoryError", None), MemoryError) if t
)


def is_oom(exc: BaseException) -> bool:
    if isinstance(exc, _OOM_TYPES):
        return True
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def available_memory(device: torch.device) -> int | None:
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def peak_rss_bytes() -> int | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if platform.system() == "Darwin" else peak * 1024)


def process_age_seconds() -> float | None:
    """Seconds since this process was created (Linux: /proc; 10 ms resolution), else None.

    Taken when the job starts, it is the interpreter's start plus `import torch`: a one-time cost
    of every training run, measured rather than assumed."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # after "(comm)", which may hold spaces
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return None


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


def _timer(step: Callable[[], Any], device: torch.device):
    return CudaTimer(step, device) if device.type == "cuda" else CpuTimer(step)


def _sweep(job: dict[str, Any], device: torch.device, base_batch: int, seconds: float) -> list[dict[str, Any]]:
    points: list[dict[str, Any]] = []
    for factor in SWEEP_FACTORS:
        batch = max(1, round(base_batch * factor))
        try:
            workload = build(job, device, batch_size=batch)
            m = measure(_timer(workload.step, device), budget_seconds=seconds, target=0.05, min_steps=5)
            points.append({"factor": factor, "batch_size": batch, "status": "ok", "step_seconds": m.stats.mean,
                           "samples_per_second": batch / m.stats.mean})
        except Exception as exc:  # noqa: BLE001 - OOM is a result; anything else ends the sweep
            status = "does_not_fit" if is_oom(exc) else "error"
            points.append({"factor": factor, "batch_size": batch, "status": status, "message": str(exc).splitlines()[0][:200]})
            break
        finally:
            workload = None
            _release(device)
    return points


def train_job(job: dict[str, Any], result: BenchResult, device: torch.device,
              progress: Callable[[dict], None] | None = None) -> BenchResult:
    """`mode: train`: really train for `epochs` epochs (every step, no sampling), for `planner validate`."""
    spec = job["spec"]
    t0 = time.perf_counter()
    workload = build(spec, device)
    result.setup_seconds = time.perf_counter() - t0
    steps = workload.steps_per_epoch * int(job["epochs"])
    ends = sorted({max(1, round(k * steps / 20)) for k in range(1, 21)}) if steps else []  # 20 windows (fewer if few steps)
    windows: list[float] = []
    t1 = last = time.perf_counter()
    done = 0
    for end in ends:
        for _ in range(end - done):
            workload.step()
        if device.type == "cuda":  # 20 syncs in a whole run cost nothing, and make the windows true GPU time
            torch.cuda.synchronize(device)
        now = time.perf_counter()
        windows.append((now - last) / (end - done))
        last, done = now, end
        if progress:
            progress({"event": "train", "steps": done, "of": steps, "seconds": now - t1})
    elapsed = time.perf_counter() - t1
    result.status, result.steps_measured, result.steps_per_epoch = "ok", steps, workload.steps_per_epoch
    result.step_seconds = elapsed / steps if steps else None
    result.wall_seconds = elapsed
    result.step_seconds_windows = windows
    return result


def run_job(job: dict[str, Any], progress: Callable[[dict], None] | None = None) -> BenchResult:
    started = time.perf_counter()
    process_start = process_age_seconds()
    spec = job["spec"]
    if job.get("threads"):
        torch.set_num_threads(int(job["threads"]))
    result = BenchResult(
        status="error", device="cpu", workload=spec.get("name", ""), torch_version=torch.__version__,
        precision=spec["train"].get("precision", "fp32"), batch_size=int(spec["train"]["batch_size"]),
        hostname=socket.gethostname(), started_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        process_start_seconds=process_start,
    )
    try:
        device = resolve_device(job.get("device", "auto"))
    except WorkloadError as exc:
        result.status, result.message = "invalid", str(exc)
        return result
    result.device = device.type
    result.device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else cpu_name()
    result.threads = torch.get_num_threads()

    need, have = job.get("memory_estimate_bytes"), available_memory(device)
    if need and have and need > 0.95 * have:
        result.status = "does_not_fit"
        result.message = (f"does not fit at batch {result.batch_size}: training needs about {need / 2**30:.1f} GiB, "
                          f"{have / 2**30:.1f} GiB available on {result.device_name}")
        return result

    if int(job.get("processes") or 1) > 1 and "RANK" in os.environ:  # under torchrun (runner/bench/distributed.py)
        from runner.bench.distributed import run_data_parallel

        result = run_data_parallel(job, result, device, progress)
        if device.type == "cuda":
            result.peak_memory_bytes, result.peak_memory_kind = int(torch.cuda.max_memory_allocated()), "cuda_max_allocated"
        else:
            result.peak_memory_bytes, result.peak_memory_kind = peak_rss_bytes(), "process_peak_rss"
        result.wall_seconds = time.perf_counter() - started
        return result
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    if job.get("mode") == "train":
        try:
            return train_job(job, result, device, progress)
        except WorkloadError as exc:
            result.status, result.message = "invalid", str(exc)
            return result
    seconds = float(job.get("seconds", 10.0))
    workload = None
    try:
        t0 = time.perf_counter()
        workload = build(spec, device)
        result.setup_seconds = time.perf_counter() - t0
        result.steps_per_epoch = workload.steps_per_epoch
        if progress:
            progress({"event": "built", "seconds": result.setup_seconds})
        m = measure(_timer(workload.step, device), budget_seconds=seconds, progress=progress)
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
        workload = None
        _release(device)

    s = m.stats
    result.status = "ok"
    result.steps_measured = s.n
    result.step_seconds, result.step_seconds_ci_low, result.step_seconds_ci_high = s.mean, s.ci_low, s.ci_high
    result.step_seconds_median, result.step_seconds_p10, result.step_seconds_p90 = s.median, s.p10, s.p90
    result.coefficient_of_variation = s.cv
    result.samples_per_second = result.batch_size / s.mean
    result.warmup_seconds, result.warmup_steps = m.warmup_seconds, m.warmup_steps
    result.stopped_because = m.stopped_because
    result.warnings = m.warnings
    if device.type == "cuda":
        result.peak_memory_bytes, result.peak_memory_kind = int(torch.cuda.max_memory_allocated(device)), "cuda_max_allocated"
    else:
        result.peak_memory_bytes, result.peak_memory_kind = peak_rss_bytes(), "process_peak_rss"
    if job.get("sweep"):
        if progress:
            progress({"event": "sweep"})
        result.sweep = _sweep(spec, device, result.batch_size, max(1.0, seconds / 4))
    result.wall_seconds = time.perf_counter() - started
    return result

