"""Every instance from the script: its measured row here and each instance predicted from the measurement or the trace."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
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
from planner.core.predict.gpu import Prediction
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
from planner.core.script.standin import StandinStep, mean_trace, standin_step, traced_step
from planner.core.script.timeline import ScriptRun, StepTrace
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
    rows = _Rows(run, est, hardware, local, label, mean_trace(run, est))
    for facts in instances:
        common = rented_fields(facts, purchase)
        if common is None:  # spot not offered
            continue
        if not facts.gpu_count:
            out.append(rows.cpu(facts, common))
        # else no GPU row, no paid GPU benchmark: the plan's warnings say why
        elif not uses_no_gpu(run):
            out.append(rows.gpu(facts, common))
    return out


@dataclass(frozen=True)
class _Rows:
    """What every predicted row of the script rests on: its run, its estimate, the step measured here and the
    mean traced step (None: none traced)."""

    run: ScriptRun
    est: ScriptEstimate
    hardware: Hardware
    local: StepMeasurement
    label: str  # the bench the rows scale
    trace: StepTrace | None

    @property
    def precision(self) -> str:
        return self.trace.precision if self.trace else "fp32"

    @cached_property
    def relative(self) -> tuple[float, float]:
        """The measured step's interval, relative (below, above): what every row scaled from it carries."""
        return relative_half_widths(self.local)

    @cached_property
    def on_standin(self) -> StandinStep | None:
        """The GPU rows' step, as a GPU runs it (None: from this CPU's trace)."""
        return standin_step(self.run)

    @cached_property
    def on_no_bf16(self) -> StandinStep | None:
        """The Turing and Volta rows' step: as a T4 runs it (None: not traced again)."""
        gpu_run = self.run.gpu_run
        return traced_step(gpu_run.gpu_run_no_bf16) if gpu_run is not None else None

    def cpu(self, facts: InstanceFacts, common: dict[str, Any]) -> Candidate:
        """A CPU instance: the measured step scaled by processor."""
        run, trace = self.run, self.trace
        cores = physical_cores(facts.vcpus, facts.arch, facts.instance_type)
        pred = predict_cpu(
            self.est.step_seconds,
            max(run.threads, 1),
            cores,
            float(trace.flops if trace else 0),
            (self.hardware.calibration or {}).get(f"cpu:{facts.family}"),
            local=self.hardware.local_cpu,
            target=self.hardware.cpus.get(facts.family),
            precision=self.precision,
        )
        low, high = widened(pred, self.local)
        below, above = self.relative
        base = {**common, "device": "cpu", "device_name": f"{facts.vcpus} vCPU {facts.arch}"}
        basis = ErrorBasis(
            model="cpu-model",
            bench=self.label,
            bench_below=below,
            bench_above=above,
            bench_predicted=bool(run.predicted_here),
        )
        return self._row(base, pred, low, high, basis)

    def gpu(self, facts: InstanceFacts, common: dict[str, Any]) -> Candidate:
        """A GPU instance: the traced ops through the device model, the script's Python on its CPU."""
        hardware = self.hardware
        gpu = hardware.gpus.get(facts.gpu_name)
        cpu = hardware.cpus.get(facts.family)
        base = {**common, "device": "cuda", "device_name": facts.gpu_name, "gpus_used": 1}
        on_standin, on_no_bf16 = self.on_standin, self.on_no_bf16
        older = gpu is not None and gpu.arch in ("turing", "volta") and on_no_bf16
        here_on = on_no_bf16 if older else on_standin
        gpu_trace = here_on.trace if here_on is not None else self.trace
        if gpu is None or gpu_trace is None:
            why = NoGpuSpec(facts.gpu_name) if gpu is None else NoStepTraced()
            return Candidate(**base, note=(why,))
        precision = self.precision if here_on is None else "fp32"
        scalar = (
            cpu_speed_ratio(hardware.local_cpu, cpu, precision)[0]
            if hardware.local_cpu and cpu
            else 1.0
        )
        # on the stand-in, the host's work measured as CPU time here, the ops as the GPU would run them
        # the host's work from the first trace for every row (one measurement: the rows stay comparable)
        relative, host_here = (
            (on_standin.relative, on_standin.host_seconds) if on_standin else (self.relative, None)
        )
        pred = predict_trace_gpu(
            gpu_trace, self.est.step_seconds, relative, gpu, scalar, host_here=host_here
        )
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
        return self._row(base, pred, pred.low, pred.high, basis)

    def _row(
        self,
        base: dict[str, Any],
        pred: Prediction,
        low: float | None,
        high: float | None,
        basis: ErrorBasis,
    ) -> Candidate:
        """The row of a predicted step: its one-time work scaled as the step is; none when nothing predicts it."""
        if pred.step_seconds is None or low is None or high is None:
            return Candidate(**{**base, "note": noted(pred.note) or base.get("note", ())})
        one_time = _one_time(self.est, pred.step_seconds / self.est.step_seconds)
        step = StepMeasurement(pred.step_seconds, low, high, one_time)
        note = (*base.pop("note", ()), *noted(pred.note))
        return Candidate(**base, step=step, note=note, basis=basis)


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
