"""The words of a script's remarks: its length, its measurement, what its GPU rows rest on."""

from __future__ import annotations

from planner.core import remarks as r
from planner.core.formats import human_bytes, rough_duration, seconds_text
from planner.report.remarks.base import word
from planner.report.text import error_line

# one sentence whichever way it was found (a trial: Adam's script and SGD's got different words for the same)
KEEPS_TO_THE_CPU = "the script keeps everything on the CPU"
NO_GPU_ASKED = (
    f"{KEEPS_TO_THE_CPU} (it never asks for a GPU: no torch.cuda.is_available() or device_count()): on a GPU "
    "instance it would train on the instance's CPU, at a GPU's price"
)
NOTHING_ON_THE_GPU = (
    f"{KEEPS_TO_THE_CPU} (traced on a stand-in GPU, nothing it made went to the GPU): on a GPU instance it "
    "would train on the instance's CPU, at a GPU's price"
)
GPU_FIXES = {  # by NoGpuRows.why: gpu_fix
    "never_asks": "pick the device from torch.cuda.is_available() to plan GPUs",
    "nothing_on_gpu": "move the model and its batches to the GPU (`.to(device)`) to plan GPUs",
}


def gpu_fix(why: str) -> str:
    """What plans GPUs for a script NoGpuRows `why` left without them: never_asks's, else nothing_on_gpu's."""
    return GPU_FIXES["never_asks" if why == "never_asks" else "nothing_on_gpu"]


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _flops(n: float) -> str:
    """A step's FLOPs in the unit that reads: '150 G FLOPs', '84.7 k FLOPs'."""
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit} FLOPs"
    return f"{n:.3g} FLOPs"


def length_text(steps: int | None, epochs: int | None) -> str:
    """A script run's length as the user gave it: '5,000 steps', or '3 epochs' ('1 epoch')."""
    from planner.report.text import counted

    return counted(steps, "step") if steps else counted(epochs or 0, "epoch")


def _pick(target: str) -> str:
    if target == "local":
        return "train here"
    return "nothing" if target == "none" else f"rent {target}"


def length_changes(x: r.LengthNotGiven) -> str:
    """How the answer moves with the run's length: where it changes, or that it does not."""
    if x.crossovers:
        changes = "; ".join(
            f"{_pick(before)} below ~{steps:,} steps, {_pick(after)} above"
            for steps, before, after in x.crossovers
        )
        return f"the answer changes with the length: {changes}"
    return f"the answer is the same at every length from {x.shortest:,} to {x.longest:,} steps"


@word.register
def _length_not_given(x: r.LengthNotGiven) -> str:
    where = length_changes(x)
    return (
        f"the run's length was not given: planned for a run of {x.per_steps:,} steps (each row's time and cost "
        f"for {x.per_steps:,} steps, its start-up included); {where}; give --total-steps N for your run's (or --epochs "
        "N, counted in a DataLoader's epochs)"
    )


@word.register
def _benched_per_steps(x: r.BenchedPerSteps) -> str:
    return (
        f"the run's length was not given: its whole run is said for {x.per_steps:,} steps; give --total-steps N "
        "for your run's (or --epochs N, counted in a DataLoader's epochs)"
    )


@word.register
def _what_if_length(x: r.WhatIfLength) -> str:
    return f"planned for {length_text(*x.planned)}, a what-if: the run's own length is {length_text(*x.own)}"


@word.register
def _length_disagrees(x: r.LengthDisagrees) -> str:
    return (
        f"the plan is of {x.epochs:,.4g} epochs ({x.steps:,} steps) and the script's own arguments say "
        f"{x.flag} {x.own:,}: the plan is not of the run they train; give the planner --epochs {x.own} (or the "
        f"script {x.flag} {x.epochs:,.4g}) to plan the run you will start"
    )


@word.register
def _finished_in_budget(x: r.FinishedInBudget) -> str:
    return (
        "the script finished within the budget: the estimate is of the run measured (give --total-steps "
        "or --epochs for a longer one)"
    )


@word.register
def _finished_short(x: r.FinishedShort) -> str:
    return (
        f"the script finished by itself after {x.ran:,} steps"
        + (f" ({x.epochs} epoch{'' if x.epochs == 1 else 's'})" if x.epochs else "")
        + f" while it was measured, and the plan is of {x.planned:,}: the run measured is the one its "
        "arguments (after --) train, so a plan of another length is a what-if; to measure the run you will "
        "train, give the script its arguments"
    )


@word.register
def _epoch_from_loader(x: r.EpochFromLoader) -> str:
    return (
        f"no whole epoch was seen: {x.steps_per_epoch:,.0f} steps per epoch is the training DataLoader's "
        f"length ({x.batches:,} batches) / the {x.per_step:g} batch(es) per step seen"
    )


@word.register
def _step_unsettled(x: r.StepUnsettled) -> str:
    when = "when the script finished" if x.finished else "at 3x the budget, measured on for it"
    what = (
        f"its last third {x.drift:.0%} off its first, its windows spread {x.spread:.0%} about their mean"
        if x.drift is not None and x.spread is not None
        else "still moving as it stopped"
    )
    if not x.alike:
        return (
            f"the step time had not settled {when} — {what} — and the steps are unlike each other (an RL "
            "agent's episodes as it learns, batches of unlike work): the steps not measured are planned at "
            "the mean of those measured, within the interval their windows span; later, longer steps (an "
            "agent learning to keep its episodes going) would make the run longer"
        )
    return (
        f"the step time had not settled {when} — {what}: a busy machine or a long warm-up; the interval "
        "may be too narrow — measure again when the machine is quieter, or give more --seconds"
    )


@word.register
def _no_data_loader(x: r.NoDataLoader) -> str:
    return (
        "the script iterated no DataLoader: its run is setup + steps (what it does between two steps, such "
        "as an evaluation every so many, is in the step time measured"
        + ("" if x.finished else "; what it does after its last step was not seen")
        + ")"
    )


@word.register
def _no_epoch_boundary(x: r.NoEpochBoundary) -> str:
    return "no epoch boundary was seen: the time between epochs (evaluation, checkpoints) is not in the estimate"


@word.register
def _predicted_here(x: r.PredictedHere) -> str:
    return (
        f"the script cannot be measured on this CPU ({x.reason}): its step here, and every CPU "
        "row, is predicted from its trace on the stand-in GPU (its FLOPs at this processor's rates in fp32, "
        f"its own host work measured), +-{x.uncertainty:.0%}"
    )


@word.register
def _after_last_step(x: r.AfterLastStep) -> str:
    if x.measured:
        return (
            f"after its last step the script ran {seconds_text(x.seconds)} more (a final evaluation, a test, a "
            "checkpoint): measured, in the estimate"
        )
    return (
        "what the script does after its last step (a final evaluation, a test, a checkpoint) was not seen: "
        f"planned as one more between-epoch pass ({seconds_text(x.seconds)}); whatever it does beyond that is not "
        "in the estimate or its interval"
    )


@word.register
def _step_boundary(x: r.StepBoundary) -> str:
    found = "torch.optim optimizer steps" if x.optimizer else "backward passes (no torch.optim)"
    return (
        f"steps found by {found}"
        + (
            f" ({x.optimizers} optimizers: one step when each has stepped)"
            if x.optimizers > 1
            else ""
        )
        + (
            f"; a step given a closure (as LBFGS takes) is one step of the {x.closure_passes:g} forward and "
            "backward passes its closure ran (median)"
            if x.closure_passes is not None
            else ""
        )
    )


@word.register
def _threads_fitted(x: r.ThreadsFitted) -> str:
    return (
        f"measured with {x.threads} torch thread{'' if x.threads == 1 else 's'}: {x.free:g} of this machine's "
        f"{x.cpus} CPUs {'was' if x.free == 1 else 'were'} free as it started (more threads than free CPUs wait on the busy ones); "
        f"OMP_NUM_THREADS{' or --threads' if x.bench else ''} sets them"
    )


@word.register
def _script_env(x: r.ScriptEnvGiven) -> str:
    parts = ([f"{', '.join(x.envs)} set here and on instances"] if x.envs else []) + (
        [
            f"{', '.join(x.secrets)} set here only (a secret is never journaled or uploaded: on an instance the "
            "script runs without it)"
        ]
        if x.secrets
        else []
    )
    return "the script's environment: " + "; ".join(parts)


@word.register
def _no_gpu_rows(x: r.NoGpuRows) -> str:
    if x.why == "no_step":
        return "no step was traced (too few steps): GPU instances are not predicted"
    why = NO_GPU_ASKED if x.why == "never_asks" else NOTHING_ON_THE_GPU
    fix = gpu_fix(x.why)
    return f"GPU rows are not predicted (GPU instances are left out of the plan): {why}; {fix}"


@word.register
def _standin_trace(x: r.StandinTrace) -> str:
    return (
        f"GPU rows: the script traced on a stand-in GPU ({x.gpu}; no arithmetic run): a step's "
        f"{x.kernels:,} kernels ({_flops(x.flops)}, {x.precision}"
        + (", fp32 matmuls on TF32" if x.tf32 else "")
        + ") on the device model, the script's own host work "
        f"({x.host_seconds * 1e3:.3g} ms of CPU a step here) on the instance's CPU, "
        f"{_count(x.copies, 'copy', 'copies')} to the device and {_count(x.reads, 'value', 'values')} "
        "read back in that step (a sync each)"
    )


@word.register
def _standin_memory(x: r.StandinMemory) -> str:
    return (
        f"GPU memory: {human_bytes(x.peak_bytes)} at the step's peak on the stand-in (weights, gradients, optimizer "
        "state, activations, inputs), checked against each GPU's; the allocator's cache is not counted"
    )


@word.register
def _compiled_eager(x: r.CompiledEager) -> str:
    return (
        "torch.compile was traced eager on the stand-in GPU: what it fuses is not modelled (the GPU rows "
        "are of the eager step; compiled, elementwise-heavy steps run faster)"
    )


@word.register
def _read_back_zeros(x: r.ReadBackZeros) -> str:
    sites = ", ".join(f"{site} ({n:,}x)" for site, n in x.sites)
    return (
        f"values read back on the stand-in GPU read as zeros (a loss printed, a metric): at {sites} in the "
        "steps traced; "
        "control flow that depends on one ran as if it were zero"
    )


@word.register
def _uncounted_ops(x: r.UncountedOps) -> str:
    return (
        f"{x.share:.0%} of the step's compute ops have no FLOP formula and are timed by their "
        f"bytes only: {', '.join(x.ops)}"
    )


@word.register
def _gpu_asked(x: r.GpuAsked) -> str:
    asked = ", ".join(x.asked)
    if x.older:
        return (
            f"the script asked the GPU's {asked}: traced again on a stand-in {x.older} (no bf16), where it ran in "
            f"{x.retraced}: the Turing and Volta rows (T4, V100) come from that trace"
        )
    return (
        f"the script asked the GPU's {asked}: the stand-in answered as {x.gpu}; on an older GPU (T4, V100: no "
        "bf16) it may choose another precision"
    )


@word.register
def _standin_work_differs(x: r.StandinWorkDiffers) -> str:
    return (
        f"the step traced on the stand-in GPU did {x.ratio:.2g}x the FLOPs of a mean step here: values read back "
        "there read as zeros, so what depends on them (an episode's length, a branch, an early stop) ran otherwise; "
        "its GPU rows rest on that step and may be off by as much"
    )


@word.register
def _standin_failed(x: r.StandinFailed) -> str:
    return (
        f"the script failed on the stand-in GPU, the stand-in its GPU step is traced on: {error_line(x.error)}. "
        "Its GPU rows come from its step as it ran on this CPU, in the precision it ran in here (a GPU run's "
        "autocast, if it has one, is not seen)"
    )


@word.register
def _traced_step(x: r.TracedStep) -> str:
    return (
        f"GPU rows: a mean step's {x.kernels:,} kernels ({_flops(x.flops)}, {x.precision}) on "
        f"the device model, its Python ({x.python_share:.0%} of a step here) on the instance's CPU, "
        f"{_count(x.copies, 'copy', 'copies')} to the device and {_count(x.reads, 'value', 'values')} read back "
        "(a sync each)"
    )


@word.register
def _script_memory(x: r.ScriptMemory) -> str:
    if x.device_bytes is None:
        return "GPU memory is not checked for a script: no torch.optim optimizer held its state (a benchmark tells)"
    return (
        f"GPU memory: ~{human_bytes(x.device_bytes)} a GPU would hold (the optimizers' weights, "
        "gradients and state, the activations saved for backward, the inputs sent), checked against "
        "each GPU's; the allocator's cache and what the script keeps outside its optimizers are not "
        "counted"
    )


@word.register
def _too_slow_here(x: r.TooSlowHere) -> str:
    return (
        f"its step would take ~{rough_duration(x.step_seconds)} here, as its trace predicts: too long to time "
        f"{x.steps} steps within the {x.cap_seconds:.0f} s cap, so it was not run here"
    )


@word.register
def _too_big_here(x: r.TooBigHere) -> str:
    return (
        f"its step holds {human_bytes(x.peak_bytes)} at its peak on the stand-in GPU, more than the "
        f"{human_bytes(x.free_bytes)} free here, so it was not run here"
    )
