"""A script traced on the stand-in GPU: its traced step, and its step here predicted from that trace when it cannot be measured on this CPU."""

from __future__ import annotations

from dataclasses import dataclass, replace

from planner.core.predict.cpu import (
    CpuFacts,
    predict_cpu_unmeasured,
)
from planner.core.remarks import TooBigHere, TooSlowHere
from planner.core.script.estimate import ScriptEstimate, steps_alike
from planner.core.script.timeline import MIN_STEADY_STEPS, Epoch, ScriptRun, StandinSeen, StepTrace


@dataclass(frozen=True)
class StandinStep:
    """A step of the script as the stand-in GPU traced it: its ops (the GPU's work) and the script's own host work
    measured here (median CPU seconds of the steps past the first two, and that median's relative half-widths)."""

    trace: StepTrace
    host_seconds: float
    relative: tuple[float, float]
    seen: StandinSeen


def standin_step(run: ScriptRun) -> StandinStep | None:
    """The stand-in GPU's step of this script (None: it was not traced there, or no step was traced)."""
    return traced_step(run.gpu_run)


def traced_step(gpu: ScriptRun | None) -> StandinStep | None:
    """The step of a run on the stand-in GPU (None: no step was traced there)."""
    if gpu is None or gpu.trace is None or gpu.standin is None or not gpu.standin.used:
        return None
    host = sorted(gpu.host_cpu[2:] or gpu.host_cpu)
    if not host:
        return None
    median = host[len(host) // 2]
    # the middle half of the steps' host time about their median: its spread, the band the host's share carries
    low, high = host[len(host) // 4], host[min(len(host) - 1, (3 * len(host)) // 4)]
    relative = (
        (median - low) / median if median > 0 else 0.0,
        (high - median) / median if median > 0 else 0.0,
    )
    trace = replace(gpu.trace, matmul_tf32=gpu.standin.matmul_tf32)
    return StandinStep(trace, median, (max(relative[0], 0.05), max(relative[1], 0.05)), gpu.standin)


def step_here_from_trace(
    gpu_run: ScriptRun, cpu: CpuFacts | None, cores: int
) -> tuple[float, float] | None:
    """A step of the script on this CPU as its trace on the stand-in GPU predicts it, and the low end of that
    prediction: its own host work the stand-in measured here plus the traced work (FLOPs and bytes) at this
    processor's rates in fp32. None without a traced step or this CPU's facts."""
    on = traced_step(gpu_run)
    if on is None or cpu is None:
        return None
    t = on.trace
    work = predict_cpu_unmeasured(
        float(t.flops), t.kernels, cores, cpu, "fp32", moved_bytes=float(t.bytes)
    )
    if work.step_seconds is None or work.low is None:
        return None
    return on.host_seconds + work.step_seconds, on.host_seconds + work.low


def too_slow_here(
    gpu_run: ScriptRun,
    cpu: CpuFacts | None,
    cores: int,
    cap_seconds: float,
    memory_bytes: int | None,
) -> TooSlowHere | TooBigHere | None:
    """Why measuring the script on this CPU is not worth starting, from its trace on the stand-in GPU: even the low end
    of its predicted step here leaves too few steps to time within the cap, or its step's peak memory (as the stand-in
    GPU counted it) is more than this machine has free. None when it is worth measuring."""
    guess = step_here_from_trace(gpu_run, cpu, cores)
    on = traced_step(gpu_run)
    # the measurement's warm-up, traced and steady steps (capped_too_soon)
    need = MIN_STEADY_STEPS + 2
    if guess is not None and guess[1] * need > cap_seconds:
        return TooSlowHere(guess[0], need, cap_seconds)
    if on is not None and memory_bytes and on.trace.peak_bytes > memory_bytes:
        return TooBigHere(on.trace.peak_bytes, memory_bytes)
    return None


def predicted_here(
    gpu_run: ScriptRun, why: str, cpu: CpuFacts | None, cores: int, stops: bool = False
) -> ScriptRun | None:
    """The script's run on this CPU as its trace on the stand-in GPU predicts it, for a script that cannot be measured
    here (`why`: CUDA hard-coded, its first step past the cap). A step here is the script's own host work the stand-in
    measured on this CPU plus the traced work (FLOPs and bytes) at this processor's rates in fp32
    (predict_cpu_unmeasured: a script that cannot run on a CPU as written runs there in fp32 once it can); the
    stand-in's timeline re-timed to it, its setup, epochs and DataLoaders kept where it saw them, with enough steps
    to plan from (`stops`: it stops on a CPU as written). None without a traced step or this CPU's facts."""
    on = traced_step(gpu_run)
    guess = step_here_from_trace(gpu_run, cpu, cores)
    if on is None or cpu is None or guess is None or not gpu_run.steps:
        return None
    t = on.trace
    step = guess[0]
    ends = gpu_run.steps
    gaps = sorted(b - a for a, b in zip(ends, ends[1:]))
    # the first step began about a step earlier
    start = max(ends[0] - (gaps[len(gaps) // 2] if gaps else 0.0), 0.0)
    new = [start + (k + 1) * step for k in range(max(len(ends), 4 * MIN_STEADY_STEPS))]

    def retimed(x: float) -> float:
        """A moment of the stand-in's run on the new timeline: shifted with the step it falls in."""
        k = next((i for i, e in enumerate(ends) if x <= e), len(ends) - 1)
        return x - ends[k] + new[k]

    cpu_trace = replace(t, flops_by_dtype={"float32": t.flops}, class_dtypes={}, matmul_tf32=False)
    return replace(
        gpu_run,
        steps=new,
        stopped_because="budget",
        steady=True,
        drift=None,
        windows_spread=None,
        epochs=[Epoch(retimed(e.start), retimed(e.end), e.batches) for e in gpu_run.epochs],
        under_way=[replace(u, start=retimed(u.start)) for u in gpu_run.under_way],
        wall=new[-1],
        cuda_used=False,
        device_name=cpu.name,
        trace=cpu_trace,
        standin=None,
        host_cpu=[],
        busy_warnings=[],
        gpu_run=gpu_run,
        predicted_here=why,
        stops_here=stops,
        gpu_asked=True,
    )  # it put its work on the GPU (a `.cuda()` asks no question): GPU rows are its own


def gpu_precision(run: ScriptRun) -> str:
    """The precision the script's step runs in on a GPU: the stand-in GPU's trace, else this CPU's."""
    on = standin_step(run)
    return on.trace.precision if on is not None else run.trace.precision if run.trace else "fp32"


def mean_trace(run: ScriptRun, est: ScriptEstimate) -> StepTrace | None:
    """The traced step as a mean one (StepTrace.scaled_to), None when no step was traced."""
    return run.trace.scaled_to(est.step_seconds, alike=steps_alike(run)) if run.trace else None
