"""The warnings and notes of a script's measurement (the words still made here; issue 40 moves them to the report layer)."""

from __future__ import annotations

from planner.core.decide import Said
from planner.core.formats import human_bytes
from planner.core.script.estimate import ScriptEstimate
from planner.core.script.instances import (
    NO_GPU_ASKED,
    NOTHING_ON_THE_GPU,
    never_asks_for_a_gpu,
    python_share,
    uses_no_gpu,
)
from planner.core.script.standin import StandinStep, mean_trace, standin_step, traced_step
from planner.core.script.timeline import ScriptRun


def standin_said(on: StandinStep, older: StandinStep | None = None) -> Said:
    """What the GPU rows rest on when the stand-in GPU traced the step: the precision it saw, what stood in, what
    no formula counts, the memory it held."""
    t, seen = on.trace, on.seen
    precision = ", ".join(seen.autocast) + " autocast" if seen.autocast else t.precision
    notes = [
        f"GPU rows: the script traced on a stand-in GPU ({seen.gpu.get('name', 'a GPU')}; no arithmetic run): a step's "
        f"{t.kernels:,} kernels ({t.flops / 1e9:.3g} G FLOPs, {precision}"
        + (", fp32 matmuls on TF32" if t.matmul_tf32 else "")
        + ") on the device model, the script's own host work "
        f"({on.host_seconds * 1e3:.3g} ms of CPU a step here) on the instance's CPU, "
        f"{_count(t.to_device.calls, 'copy', 'copies')} to the device and {_count(t.to_host.calls, 'value', 'values')} "
        "read back (a sync each)",
        f"GPU memory: {human_bytes(t.peak_bytes)} at the step's peak on the stand-in (weights, gradients, optimizer state, "
        "activations, inputs), checked against each GPU's; the allocator's cache is not counted",
    ]
    warnings = []
    if seen.compiled:
        warnings.append(
            "torch.compile was traced eager on the stand-in GPU: what it fuses is not modelled (the GPU rows "
            "are of the eager step; compiled, elementwise-heavy steps run faster)"
        )
    if seen.read_sites:
        sites = ", ".join(f"{site} ({n:,}x)" for site, n in seen.read_sites.items())
        notes.append(
            f"values read back on the stand-in GPU read as zeros (a loss printed, a metric): at {sites}; "
            "control flow that depends on one ran as if it were zero"
        )
    if t.uncounted_ops:
        ops = ", ".join(sorted(t.uncounted_ops))
        warnings.append(
            f"{t.uncounted_share:.0%} of the step's compute ops have no FLOP formula and are timed by their "
            f"bytes only: {ops}"
        )
    if older is not None:
        notes.append(
            f"the script asked the GPU's {', '.join(seen.asked)}: traced again on a stand-in "
            f"{older.seen.gpu.get('name')} (no bf16), where it ran in {older.trace.precision}: the Turing and "
            "Volta rows (T4, V100) come from that trace"
        )
    elif seen.asked and any(q in seen.asked for q in ("bf16", "capability", "properties")):
        notes.append(
            f"the script asked the GPU's {', '.join(seen.asked)}: the stand-in answered as "
            f"{seen.gpu.get('name')}; on an older GPU (T4, V100: no bf16) it may choose another precision"
        )
    return Said(warnings, notes)


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def script_said(run: ScriptRun, est: ScriptEstimate, predicted: bool = True) -> Said:
    """What a plan of the script says: the estimate's own warnings and notes, how the steps were found and
    (`predicted`: it has predicted rows) what its GPU rows rest on, or why there are none (a warning)."""
    said = est.said + Said(
        notes=[
            f"steps found by {'torch.optim optimizer steps' if run.boundary == 'optimizer' else 'backward passes (no torch.optim)'}"
            + (
                f" ({run.optimizers} optimizers: one step when each has stepped)"
                if run.optimizers > 1
                else ""
            )
            + (
                f"; a step given a closure (as LBFGS takes) is one step of the {run.closure_passes:g} forward and backward "
                "passes its closure ran (median)"
                if run.closure_steps and run.closure_passes is not None
                else ""
            )
        ]
    )
    if (fitted := run.threads_fitted) is not None and int(fitted["threads"]) < int(fitted["cpus"]):
        said += Said(
            notes=[
                f"measured with {run.threads} torch thread{'' if run.threads == 1 else 's'}: "
                f"{fitted['free_cpus']:g} of this machine's "
                f"{int(fitted['cpus'])} CPUs were free as it started (more threads than free CPUs wait on the "
                "busy ones); OMP_NUM_THREADS sets them"
            ]
        )
    if not predicted:
        return said
    t = mean_trace(run, est)
    if never_asks_for_a_gpu(run):
        return said + Said(
            [
                f"GPU rows are not predicted (GPU instances are left out of the plan): {NO_GPU_ASKED}; "
                "pick the device from torch.cuda.is_available() to plan GPUs"
            ]
        )
    if uses_no_gpu(run):
        return said + Said(
            [
                f"GPU rows are not predicted (GPU instances are left out of the plan): {NOTHING_ON_THE_GPU}; "
                "move the model and its batches to the GPU (`.to(device)`) to plan GPUs"
            ]
        )
    if (on := standin_step(run)) is not None:
        older = run.gpu_run.gpu_run_no_bf16 if run.gpu_run is not None else None
        return said + standin_said(on, traced_step(older))
    if t is None:
        return said + Said(["no step was traced (too few steps): GPU instances are not predicted"])
    said += Said(
        notes=[
            f"GPU rows: a mean step's {t.kernels:,} kernels ({t.flops / 1e9:.3g} G FLOPs, {t.precision}) on "
            f"the device model, its Python ({python_share(run, est) or 0.0:.0%} of a step here) on the "
            f"instance's CPU, {_count(t.to_device.calls, 'copy', 'copies')} to the device and "
            f"{_count(t.to_host.calls, 'value', 'values')} read back (a sync each)"
        ]
    )
    if t.device_bytes is None:
        return said + Said(
            [
                "GPU memory is not checked for a script: no torch.optim optimizer held its state "
                "(a benchmark tells)"
            ]
        )
    return said + Said(
        notes=[
            f"GPU memory: ~{human_bytes(t.device_bytes)} a GPU would hold (the optimizers' weights, "
            "gradients and state, the activations saved for backward, the inputs sent), checked against "
            "each GPU's; the allocator's cache and what the script keeps outside its optimizers are not "
            "counted"
        ]
    )
