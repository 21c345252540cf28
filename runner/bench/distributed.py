"""Data-parallel benching with PyTorch's own engine: DistributedDataParallel under torchrun. Design
notes: docs/reference/modules.md (runner/bench/distributed.py)."""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import torch
import torch.distributed as dist

PROBE_MIB = (0.0009765625, 1.0, 4.0, 16.0)  # 1 KiB (latency) to 16 MiB (bandwidth)
# a rank that dies must not hang the others for gloo's 30 min
GROUP_TIMEOUT = dt.timedelta(seconds=180)
STOP, SYNC, NO_SYNC = 0, 1, -1


def world() -> tuple[int, int, int]:
    """(rank, world size, local rank) from torchrun's environment; (0, 1, 0) outside it."""
    return (
        int(os.environ.get("RANK", 0)),
        int(os.environ.get("WORLD_SIZE", 1)),
        int(os.environ.get("LOCAL_RANK", 0)),
    )


def relaunch(argv: list[str], processes: int) -> None:
    """Re-exec this bench under `torchrun --standalone --nproc_per_node=N` (same process id, so the
    caller's timeouts and kills still apply); returns only when no relaunch is needed."""
    if processes <= 1 or "RANK" in os.environ:
        return
    os.execv(
        sys.executable,
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc_per_node={processes}",
            "-m",
            "runner.bench",
            *argv,
        ],
    )


def processes_for(job: dict[str, Any]) -> int:
    """The ranks a job asks for; on CUDA never more than the GPUs torch sees."""
    wanted = max(1, int(job.get("processes") or 1))
    device = job.get("device", "auto")
    if wanted > 1 and device in ("cuda", "auto") and torch.cuda.is_available():
        wanted = min(wanted, torch.cuda.device_count())
    return wanted


def join(device: torch.device) -> Any:
    """Join the process group (NCCL for CUDA, one GPU per rank; gloo on CPU); returns the gloo group
    that carries the lockstep commands."""
    if device.type == "cuda":
        torch.cuda.set_device(world()[2])
        dist.init_process_group("nccl", timeout=GROUP_TIMEOUT)
        return dist.new_group(backend="gloo", timeout=GROUP_TIMEOUT)
    dist.init_process_group("gloo", timeout=GROUP_TIMEOUT)
    return dist.group.WORLD


def leave() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class Lockstep:
    """Rank 0 says how many steps to run next (and in which mode); the others do as told."""

    def __init__(self, group: Any):
        self.group = group
        self.rank = dist.get_rank()

    def command(self, value: int) -> int:
        t = torch.tensor([value], dtype=torch.int64)
        dist.broadcast(t, src=0, group=self.group)
        dist.barrier(group=self.group)  # the block starts on every rank at once
        return int(t.item())

    def stop(self) -> None:
        if self.rank == 0:
            self.command(STOP)


class LeaderTimer:
    """A StepTimer for rank 0 (runner.bench.harness): each block is broadcast before it runs."""

    def __init__(self, lock: Lockstep, timer: Any, mode: int = SYNC):
        self.lock, self.timer, self.mode = lock, timer, mode

    def run_block(self, n: int) -> list[float]:
        self.lock.command(self.mode * n)
        return self.timer.run_block(n)


def follow(lock: Lockstep, step: Callable[[], object], no_sync: Callable[[], Any]) -> int:
    """The other ranks: run whatever blocks rank 0 announces until it says stop. Returns steps run."""
    done = 0
    while True:
        n = lock.command(0)
        if n == STOP:
            return done
        with no_sync() if n < 0 else nullcontext():
            for _ in range(abs(n)):
                step()
        done += abs(n)


def exposed_share(
    lock: Lockstep,
    sync_timer: Any,
    local_timer: Any,
    step_seconds: float,
    rounds: int = 4,
    block_seconds: float = 0.5,
) -> tuple[float, float, float, float]:
    """Rank 0: (exposed share, median sync step, median no_sync step, the no_sync steps' coefficient of
    variation) from alternating blocks, so a machine that drifts slows both alike."""
    n = max(2, min(2000, int(block_seconds / max(step_seconds, 1e-6))))
    synced, local = [], []
    for _ in range(rounds):
        synced += LeaderTimer(lock, sync_timer, SYNC).run_block(n)
        local += LeaderTimer(lock, local_timer, NO_SYNC).run_block(n)
    s, u = statistics.median(synced), statistics.median(local)
    cv = statistics.pstdev(local) / statistics.fmean(local) if len(local) > 1 else 0.0
    return max(0.0, 1.0 - u / s), s, u, cv


def allreduce_seconds(nbytes: int, device: torch.device, repeats: int = 7) -> float:
    """Median seconds of one all_reduce of `nbytes` (fp32) across every rank (all ranks must call)."""
    buf = torch.zeros(max(1, nbytes // 4), dtype=torch.float32, device=device)
    for _ in range(2):
        dist.all_reduce(buf)
    _sync(device)
    times = []
    for _ in range(repeats):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(buf)
        _sync(device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def fit_fabric(points: list[tuple[int, float]], ranks: int) -> tuple[float, float]:
    """(latency seconds, bus bytes per second) of t = latency + 2(N-1)/N x bytes / bus: the bandwidth
    from a least-squares line through the larger sizes, the latency from the smallest size (a line
    through all sizes would let the large ones decide the intercept, and small buckets need it)."""
    points = sorted(points)
    large = points[1:] if len(points) > 2 else points
    xs = [2 * (ranks - 1) / ranks * b for b, _t in large]
    ts = [t for _b, t in large]
    mx, mt = statistics.fmean(xs), statistics.fmean(ts)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (t - mt) for x, t in zip(xs, ts)) / sxx if sxx > 0 else 0.0
    smallest_bytes, smallest_t = points[0]
    latency = max(0.0, smallest_t - slope * 2 * (ranks - 1) / ranks * smallest_bytes)
    return latency, (1.0 / slope if slope > 0 else float("inf"))


def probe(device: torch.device, max_mib: float = 16.0) -> dict[str, Any]:
    """The fabric as this world's ranks see it (every rank must call): sizes, medians, fit."""
    sizes = [int(m * 2**20) for m in PROBE_MIB if m <= max_mib]
    points = [(s, allreduce_seconds(s, device)) for s in sizes]
    latency, bus = fit_fabric(points, dist.get_world_size())
    return {
        "points": [[b, t] for b, t in points],
        "latency_seconds": latency,
        "bus_bytes_per_second": bus,
        "ranks": dist.get_world_size(),
        "backend": dist.get_backend(),
    }


def run_data_parallel(
    job: dict[str, Any],
    result: Any,
    device: torch.device,
    progress: Callable[[dict], None] | None = None,
) -> Any:
    """This rank's part of a data-parallel bench (under torchrun); rank 0 fills `result` (a BenchResult)
    with the step of the global batch and what its all-reduce costs."""
    from torch.nn.parallel import DistributedDataParallel

    from runner.bench.harness import measure, record, timer_for
    from runner.bench.workloads import WorkloadError, build

    rank, size, local_rank = world()
    if device.type == "cuda":
        device = torch.device("cuda", local_rank)
    elif not job.get("threads"):  # ranks share this machine's cores
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // size))
    spec = job["spec"]
    batch = int(job.get("batch_size") or spec["train"]["batch_size"])  # the global batch
    result.processes, result.threads = size, torch.get_num_threads()
    if batch % size:
        result.status, result.message = (
            "invalid",
            f"batch {batch:,} does not split evenly over {size} processes",
        )
        return result
    lock = Lockstep(join(device))
    result.backend = dist.get_backend()
    try:
        t0 = time.perf_counter()

        def wrap(m: Any) -> Any:
            return DistributedDataParallel(
                m, device_ids=[local_rank] if device.type == "cuda" else None
            )

        workload = build(spec, device, batch_size=batch // size, seed=rank, wrap=wrap)
        result.setup_seconds = time.perf_counter() - t0

        def no_sync_step() -> object:
            with workload.model.no_sync():  # type: ignore[operator]  # the DDP wrapper's
                return workload.step()

        if rank == 0:
            try:
                m = measure(
                    LeaderTimer(lock, timer_for(workload.step, device)),
                    float(job.get("seconds", 10.0)),
                    progress=progress,
                )
                share, synced, local, cv = exposed_share(
                    lock,
                    timer_for(workload.step, device),
                    timer_for(no_sync_step, device),
                    m.stats.mean,
                )
            finally:
                lock.stop()
        else:
            follow(lock, workload.step, workload.model.no_sync)  # type: ignore[arg-type]  # the DDP wrapper's
        gradient_bytes = sum(
            p.numel() * p.element_size() for p in workload.model.parameters() if p.requires_grad
        )
        flat = allreduce_seconds(gradient_bytes, device)
        fabric = probe(device)
    except WorkloadError as exc:
        result.status, result.message = "invalid", str(exc)
        return result
    finally:
        leave()
    if rank == 0:
        result.batch_size, samples = batch, int(spec["data"]["samples"])
        record(result, m)
        result.steps_per_epoch = -(-max(samples, batch) // batch)  # of the global batch
        result.step_seconds_no_sync, result.step_cv_no_sync, result.allreduce_share = (
            local,
            cv,
            share,
        )
        result.allreduce_seconds, result.gradient_bytes, result.fabric = (
            flat,
            gradient_bytes,
            fabric,
        )
        if abs(synced - m.stats.mean) > 0.25 * m.stats.mean:
            result.warnings.append(
                {"kind": "allreduce_moved", "synced_seconds": synced, "bench_seconds": m.stats.mean}
            )
    return result


def main(argv: list[str]) -> int:
    """The fabric probe alone: `python -m runner.bench.distributed OUT.json [--processes N] [--max-mib M]`."""
    args = list(argv)
    processes = int(args[args.index("--processes") + 1]) if "--processes" in args else 2
    max_mib = float(args[args.index("--max-mib") + 1]) if "--max-mib" in args else 16.0
    out = args[0]
    if "RANK" not in os.environ:
        os.execv(
            sys.executable,
            [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--standalone",
                f"--nproc_per_node={processes}",
                "-m",
                "runner.bench.distributed",
                *argv,
            ],
        )
    torch.set_num_threads(1)
    device = torch.device("cpu")
    join(device)
    try:
        found = probe(device, max_mib)
    finally:
        rank = dist.get_rank()
        leave()
    if rank == 0:
        with open(out, "w") as f:
            json.dump(found, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
