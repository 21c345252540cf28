"""Every instance from the script: its measured row here and each instance predicted from the measurement or the trace."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planner.core.candidates import (
    LOCAL,
    Candidate,
    Target,
    does_not_fit_note,
    fits,
    noted,
)
from planner.core.decide import ErrorBasis
from planner.core.estimate import (
    PROCESS_EXIT_SECONDS,
    StepMeasurement,
    relative_half_widths,
)
from planner.core.kinds import Device
from planner.core.predict.cpu import (
    cpu_speed_ratio,
    physical_cores,
    predict_cpu,
)
from planner.core.predict.trace import host_seconds, predict_trace_gpu
from planner.core.predicted import Hardware, rented_fields, widened
from planner.core.remarks import (
    GpusIdle,
    MeasuredBusy,
    NoGpuSpec,
    NoStepTraced,
    NotMeasured,
    UsedNoGpu,
)
from planner.core.script.estimate import ScriptEstimate
from planner.core.script.standin import mean_trace, standin_step, traced_step
from planner.core.script.timeline import ScriptRun
from pricing.facts import InstanceFacts


def _local_step(est: ScriptEstimate, one_time: float) -> StepMeasurement:
    return StepMeasurement(
        est.step_seconds,
        est.step_low,
        est.step_high,
        one_time,
        process_start_seconds=0.0,
        exit_seconds=PROCESS_EXIT_SECONDS,
        steps_measured=est.steps_measured,
    )


def _one_time(est: ScriptEstimate, ratio: float = 1.0) -> float:
    """Setup, and the time between epochs and after the last step scaled as the step is (an evaluation pass is the
    same kind of work): as estimate_script counts them."""
    after = est.after_seconds
    passes = max(est.epochs - 1, 0.0) if after is not None else est.epochs
    return (
        est.setup_seconds + ((est.between_epochs_seconds or 0.0) * passes + (after or 0.0)) * ratio
    )


def measured_script_candidate(
    target: Target,
    run: ScriptRun,
    est: ScriptEstimate,
    price_per_hour: float,
    options: Any,
    requirements_seconds: float = 0.0,
) -> Candidate:
    """A rented instance's row from the script measured there (its steps timed on its own device; the
    requirements installed at boot are one-time cost)."""
    device: Device = "cuda" if run.cuda_used else "cpu"
    step = replace(_local_step(est, requirements_seconds + _one_time(est)), exit_seconds=None)
    below, above = relative_half_widths(step)
    label = target.label(device)
    note = () if run.cuda_used else (UsedNoGpu(),)
    return Candidate(
        target=target.name,
        instance_type=target.instance_type,
        device=device,
        source="measured",
        price_per_hour=price_per_hour,
        billing="ec2",
        device_name=run.device_name,
        region=options.region,
        purchase=options.purchase,
        gpus_used=1 if run.cuda_used else None,
        step=step,
        note=note,
        basis=ErrorBasis(
            model=f"measured:{label}", bench=label, bench_below=below, bench_above=above
        ),
    )


def never_asks_for_a_gpu(run: ScriptRun) -> bool:
    """The script ran on a CPU and never asked PyTorch whether a GPU is there: its device is its own code's or
    arguments' choice, the same on an instance, so a GPU would sit idle."""
    return run.gpu_asked is False and not run.cuda_used


def uses_no_gpu(run: ScriptRun) -> bool:
    """A GPU would sit idle under the script: it never asks for one, or, run on the stand-in GPU, it put nothing on
    it (a device pinned to the CPU: Adam, AdamW, RMSprop and a pinned DataLoader ask torch.cuda themselves)."""
    seen = run.gpu_run.standin if run.gpu_run is not None else None
    return never_asks_for_a_gpu(run) or (not run.cuda_used and seen is not None and not seen.used)


def script_candidates(
    run: ScriptRun,
    est: ScriptEstimate,
    instances: list[InstanceFacts],
    purchase: str,
    hardware: Hardware,
    local_price_per_hour: float = 0.0,
) -> list[Candidate]:
    """This machine's row, measured, and every priced instance predicted from it: a CPU instance scales the
    measured step by processor (planner/core/predict/cpu.py, the traced FLOPs as the work), a GPU instance
    runs the traced ops through the device model and the script's Python on its CPU
    (planner/core/predict/trace.py). One GPU per instance: the script decides how many it uses."""
    device: Device = "cuda" if run.cuda_used else "cpu"
    local = _local_step(est, _one_time(est))
    below, above = relative_half_widths(local)
    label = LOCAL.label(device)
    out = [
        Candidate(
            target=LOCAL.name,
            device=device,
            source="predicted" if run.predicted_here else "measured",
            price_per_hour=local_price_per_hour,
            billing="local",
            device_name=_local_device_name(run, device),
            step=local,
            note=(NotMeasured(run.predicted_here),) if run.predicted_here else (),
            caveat=MeasuredBusy() if run.busy_warnings else None,
            basis=ErrorBasis(
                model=f"measured:{label}",
                bench=label,
                bench_below=below,
                bench_above=above,
                bench_predicted=bool(run.predicted_here),
            ),
        )
    ]
    trace = mean_trace(run, est)
    precision = trace.precision if trace else "fp32"
    # the GPU rows' step, as a GPU runs it (None: from this CPU's trace)
    on_standin = standin_step(run)
    # Turing, Volta rows
    on_no_bf16 = traced_step(run.gpu_run.gpu_run_no_bf16) if run.gpu_run is not None else None
    for facts in instances:
        common = rented_fields(facts, purchase)
        if common is None:  # spot not offered
            continue
        cpu = hardware.cpus.get(facts.family)
        if not facts.gpu_count:
            cores = physical_cores(facts.vcpus, facts.arch, facts.instance_type)
            pred = predict_cpu(
                est.step_seconds,
                max(run.threads, 1),
                cores,
                float(trace.flops if trace else 0),
                (hardware.calibration or {}).get(f"cpu:{facts.family}"),
                local=hardware.local_cpu,
                target=cpu,
                precision=precision,
            )
            low, high = widened(pred, local)
            base = {**common, "device": "cpu", "device_name": f"{facts.vcpus} vCPU {facts.arch}"}
            basis = ErrorBasis(
                model="cpu-model",
                bench=label,
                bench_below=below,
                bench_above=above,
                bench_predicted=bool(run.predicted_here),
            )
        elif uses_no_gpu(run):
            continue  # no GPU row, no paid GPU benchmark: the plan's warnings say why
        else:
            gpu = hardware.gpus.get(facts.gpu_name)
            base = {**common, "device": "cuda", "device_name": facts.gpu_name, "gpus_used": 1}
            here_on = (
                on_no_bf16
                if gpu is not None and gpu.arch in ("turing", "volta") and on_no_bf16
                else on_standin
            )
            gpu_trace = here_on.trace if here_on is not None else trace
            if gpu is None or gpu_trace is None:
                why = NoGpuSpec(facts.gpu_name) if gpu is None else NoStepTraced()
                out.append(Candidate(**base, note=(why,)))
                continue
            scalar = (
                cpu_speed_ratio(hardware.local_cpu, cpu, precision if here_on is None else "fp32")[
                    0
                ]
                if hardware.local_cpu and cpu
                else 1.0
            )
            # on the stand-in, the host's work measured as CPU time here, the ops as the GPU would run them
            # the host's work from the first trace for every row (one measurement: the rows stay comparable)
            relative, host_here = (
                (on_standin.relative, on_standin.host_seconds)
                if on_standin
                else ((below, above), None)
            )
            pred = predict_trace_gpu(
                gpu_trace, est.step_seconds, relative, gpu, scalar, host_here=host_here
            )
            low, high = pred.low, pred.high
            memory, need = float(facts.gpu_memory_gib or 0.0) * 2**30, gpu_trace.device_bytes
            if need is not None and memory and not fits(need, memory):
                base.update(fits=False, note=(does_not_fit_note(need, memory),))
            # the bench's share is inside the band already; the same GPU behind the same CPU family: one estimate
            basis = ErrorBasis(
                model=f"gpu-model:{gpu.arch}:{gpu_trace.precision}",
                estimate=f"trace:{gpu.name}:{facts.family}",
            )
            if facts.gpu_count > 1:
                base["note"] = (*base.get("note", ()), GpusIdle(1, facts.gpu_count, script=True))
        if pred.step_seconds is None or low is None or high is None:
            out.append(Candidate(**{**base, "note": noted(pred.note) or base.get("note", ())}))
            continue
        step = StepMeasurement(
            pred.step_seconds, low, high, _one_time(est, pred.step_seconds / est.step_seconds)
        )
        note = (*base.pop("note", ()), *noted(pred.note))
        out.append(Candidate(**base, step=step, note=note, basis=basis))
    return out


def _local_device_name(run: ScriptRun, device: Device) -> str:
    """This machine's row's device as the launcher saw it: the CPU's model and the threads PyTorch used; the GPU's name."""
    if device != "cpu":
        return run.device_name
    threads = f"{run.threads} thread{'' if run.threads == 1 else 's'}"
    return f"{run.device_name}, {threads}" if run.device_name else threads


def python_share(run: ScriptRun, est: ScriptEstimate) -> float | None:
    """The share of a mean step spent in the script's own Python (outside PyTorch's ops and their eager
    overhead), from the traced step scaled to the mean one; None without a trace."""
    trace = mean_trace(run, est)
    if trace is None or est.step_seconds <= 0:
        return None
    return host_seconds(trace, est.step_seconds) / est.step_seconds
