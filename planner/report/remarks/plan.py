"""The words of the decision's and the plan's remarks."""

from __future__ import annotations

from planner.core import remarks as r
from planner.core.formats import human_bytes
from planner.report.remarks.base import word


@word.register
def _deadline_missed(x: r.DeadlineMissed) -> str:
    # the deadline as the title says it (a trial: 162 s was '3 min' here)
    from planner.report.title import given_duration

    what = "nothing here" if x.here else "no option to rent"
    return f"{what} finishes within the deadline ({given_duration(x.deadline_seconds)}) with its whole interval"


@word.register
def _kind_only(x: r.KindOnly) -> str:
    return "GPU instances only (--gpu)" if x.gpu else "CPU instances only (--cpu)"


@word.register
def _nothing_priced(x: r.NothingPriced) -> str:
    kind = "GPU " if x.gpu else "CPU " if x.gpu is False else ""
    where = "in any region" if x.region == "all" else f"in {x.region}"
    flag = " --gpu" if x.gpu else " --cpu" if x.gpu is False else ""
    return (
        f"the price data has no {kind}instance {where} ({x.purchase}): nothing there to predict; "
        f"`planner prices{flag} --all-regions` lists where they are"
    )


@word.register
def _auto_benchmarked_none(x: r.AutoBenchmarkedNone) -> str:
    return (
        f"auto chose {len(x.chosen)} instance(s) to benchmark ({', '.join(x.chosen)}) and benchmarked none: "
        f"{x.problem}"
    )


@word.register
def _not_measured_here(x: r.NotMeasuredHere) -> str:
    return (
        f"{x.reason}; every row is predicted from the work alone (as --predict-only); give "
        "more --seconds to measure it here"
    )


@word.register
def _emulated_precision(x: r.EmulatedPrecision) -> str:
    return (
        f"{x.gpu} has no {x.precision} tensor cores: PyTorch emulates {x.precision} in fp32 there (slow; some "
        f"convolutions may fail); use {x.instead}"
    )


@word.register
def _busy_while_measured(x: r.BusyWhileMeasured) -> str:
    again = "; measure again when it is quiet" if x.again else ""
    if x.other_cpus is None:
        return (
            f"the hypervisor took {x.steal_percent or 0.0:.0f}% of the CPUs while {x.what} measured "
            f"(steal time): a shared host's neighbours slowed this measurement{again}"
        )
    crowded = (
        f"; torch's {x.threads} thread{'s' if x.threads != 1 else ''} had about {x.free:.1f} CPUs free, and threads "
        "that outnumber the free CPUs wait for each other: a step can take many times longer than on a quiet "
        "machine (up to 20x, measured on a 2-CPU machine with one CPU busy), and the CPU instances are predicted "
        "from it; --threads N (OMP_NUM_THREADS=N for a script) sets them"
        if x.crowded
        else ""
    )
    return (
        f"the machine was busy while {x.what} measured: other processes used {x.other_cpus:.1f} of "
        f"its {x.cpus} CPUs, so the step time is likely slower and noisier than on a quiet machine{crowded}{again}"
    )


@word.register
def _no_usable_interval(x: r.NoUsableInterval) -> str:
    return (
        f"no usable interval: the {x.steps} step(s) measured do not pin the step time down"
        + (f" (known only to +-{x.above:.0%})" if x.above is not None else "")
        + "; give more --seconds or a quieter machine"
    )


@word.register
def _at_target(x: r.AtTarget) -> str:
    return f"{x.target}: {word(x.remark)}"


@word.register
def _data_modelled(x: r.DataModelled) -> str:
    return (
        f"the step was measured on a pool of {x.pool_samples:,} samples ({human_bytes(x.pool_bytes)}) cycled; "
        f"the whole dataset ({human_bytes(x.dataset_bytes)}) is modelled: the memory check counts it, and "
        f"materialising it ({'under 1 s' if x.seconds < 0.5 else f'~{x.seconds:.0f} s'} at the pool's rate) is in "
        "the one-time cost"
    )


@word.register
def _task_part_unused(x: r.TaskPartUnused) -> str:
    listed = ", ".join(x.items)
    said = {
        "run": f"run: not run by the planner (it runs the python command alone): {listed}",
        "setup": f"setup: not run by the planner (a pip install -r FILE is, as --requirements): {listed}",
        "resources": f"resources ({listed}) do not narrow the plan: every instance is planned, and the plan says "
        "what the task's choice would cost against its answer; --targets picks the ones benchmarked",
        "cloud": f"resources: the task asks for {listed}; the planner prices AWS instances only",
        "num_nodes": f"num_nodes: {listed}: planned as one node",
        "file_mounts": "file_mounts are not mounted: the script's data must be in the workdir, or downloaded by "
        "the script",
    }
    return f"{x.source}: {said.get(x.part, f'{x.part}: not used by the planner')}"


@word.register
def _scaled_from_batch(x: r.ScaledFromBatch) -> str:
    return (
        f"measured at batch {x.measured:,}, not the spec's {x.batch:,}: the spec's batch needs more memory than "
        f"the local bench may hold ({x.budget_bytes / 2**30:g} GiB); the step time is scaled x{x.factor:g}, "
        "which assumes per-sample work dominates the step"
    )


@word.register
def _emulated_here(x: r.EmulatedHere) -> str:
    p = x.precision
    slower = EMULATED_SLOWER.get(p, "many times slower")
    return (
        f"this CPU has no {p} units ({x.units}): {p} would be emulated here ({slower}), so its step is measured "
        f"in fp32, the precision to train in on this CPU (a plan predicts each CPU instance for the {p} units it "
        "has)"
    )


# How much slower a step ran emulated than in fp32, measured on CPUs without the units (issue 40's bf16; fp16 on this
# project's 2-vCPU AMD EPYC, 2026-11-30: small-cnn 248.9 ms against 33.4 ms, and 475 against 54 ms in a trial)
EMULATED_SLOWER = {
    "bf16": "51-75x slower, measured on one such CPU",
    "fp16": "7-9x slower, measured on one such CPU",
}
