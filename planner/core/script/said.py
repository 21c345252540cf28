"""The remarks of a script's measurement: how its steps were found, what its GPU rows rest on (planner.report.remarks
words them)."""

from __future__ import annotations

from planner.core.remarks import (
    CompiledEager,
    GpuAsked,
    NoGpuRows,
    ReadBackZeros,
    Remark,
    Said,
    ScriptMemory,
    StandinFailed,
    StandinMemory,
    StandinTrace,
    StandinWorkDiffers,
    StepBoundary,
    ThreadsFitted,
    TracedStep,
    UncountedOps,
)
from planner.core.script.estimate import ScriptEstimate
from planner.core.script.instances import never_asks_for_a_gpu, python_share, uses_no_gpu
from planner.core.script.standin import StandinStep, mean_trace, standin_step, traced_step
from planner.core.script.timeline import ScriptRun

# the stand-in's step against a mean step here, in FLOPs, beyond which the two did other work
WORK_DIFFERS = 1.5


def standin_said(on: StandinStep, older: StandinStep | None = None) -> Said:
    """What the GPU rows rest on when the stand-in GPU traced the step: the precision it saw, what stood in, what
    no formula counts, the memory it held."""
    t, seen = on.trace, on.seen
    precision = ", ".join(seen.autocast) + " autocast" if seen.autocast else t.precision
    name = seen.gpu.name
    notes: list[Remark] = [
        StandinTrace(
            name,
            t.kernels,
            t.flops,
            precision,
            bool(t.matmul_tf32),
            on.host_seconds,
            t.to_device.calls,
            t.to_host.calls,
        ),
        StandinMemory(t.peak_bytes),
    ]
    warnings: list[Remark] = []
    if seen.compiled:
        warnings.append(CompiledEager())
    if seen.read_sites:
        notes.append(ReadBackZeros(tuple(seen.read_sites.items())))
    if t.uncounted_ops:
        warnings.append(UncountedOps(t.uncounted_share, tuple(sorted(t.uncounted_ops))))
    if older is not None:
        notes.append(
            GpuAsked(
                tuple(seen.asked),
                seen.gpu.name,
                older.seen.gpu.name,
                older.trace.precision,
            )
        )
    elif seen.asked and any(q in seen.asked for q in ("bf16", "capability", "properties")):
        notes.append(GpuAsked(tuple(seen.asked), seen.gpu.name))
    return Said(warnings, notes)


def script_said(run: ScriptRun, est: ScriptEstimate, predicted: bool = True) -> Said:
    """What a plan of the script says: the estimate's own warnings and notes, how the steps were found and
    (`predicted`: it has predicted rows) what its GPU rows rest on, or why there are none (a warning)."""
    said = est.said + Said(
        notes=[
            StepBoundary(
                run.boundary == "optimizer",
                run.optimizers,
                run.closure_passes if run.closure_steps else None,
            )
        ]
    )
    if (fitted := run.threads_fitted) is not None and int(fitted["threads"]) < int(fitted["cpus"]):
        said += Said(
            notes=[ThreadsFitted(run.threads, float(fitted["free_cpus"]), int(fitted["cpus"]))]
        )
    if not predicted:
        return said
    t = mean_trace(run, est)
    if never_asks_for_a_gpu(run):
        return said + Said([NoGpuRows("never_asks")])
    if uses_no_gpu(run):
        return said + Said([NoGpuRows("nothing_on_gpu")])
    if (on := standin_step(run)) is not None:
        older = run.gpu_run.gpu_run_no_bf16 if run.gpu_run is not None else None
        said += standin_said(on, traced_step(older))
        # the same code did other work there: what depends on a value read back (zeros) ran otherwise (a trial's
        # RL agent always took action 0, so each traced episode ran its 50 steps where they average 12 here)
        ratio = on.trace.flops / t.flops if t is not None and t.flops > 0 else 1.0
        if not 1 / WORK_DIFFERS <= ratio <= WORK_DIFFERS:
            said += Said([StandinWorkDiffers(ratio)])
        return said
    if t is None:
        return said + Said([NoGpuRows("no_step")])
    if run.standin_error:
        said += Said([StandinFailed(run.standin_error)])
    said += Said(
        notes=[
            TracedStep(
                t.kernels,
                t.flops,
                t.precision,
                python_share(run, est) or 0.0,
                t.to_device.calls,
                t.to_host.calls,
            )
        ]
    )
    if t.device_bytes is None:
        return said + Said([ScriptMemory(None)])
    return said + Said(notes=[ScriptMemory(t.device_bytes)])
