"""PlannerService: the one API both front ends (CLI and TUI) call.

It turns validated specs into bench jobs, runs targets, and hands results to the pure core. It owns
no presentation: callers pass an `on_progress` callback and render what comes back.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from planner.errors import InputError, RunError, SpecError
from planner.footprint import Footprint, Layer, footprint, layers_of
from planner.spec import WorkloadSpec, load_spec

ProgressFn = Callable[[str, dict[str, Any]], None]  # (target label, event)


@dataclass(frozen=True)
class BenchOptions:
    device: str = "auto"  # cpu | cuda | auto
    seconds: float = 10.0
    sweep: bool = False
    threads: int | None = None


def torch_cuda_available() -> bool:
    import torch  # lazy: the CLI's --help must not pay for it

    return bool(torch.cuda.is_available())


@dataclass(frozen=True)
class PriceQuery:
    region: str | None = None
    gpu: bool | None = None  # True: GPU only, False: CPU only
    arch: str | None = None
    min_gpu_memory_gib: float | None = None
    max_price: float | None = None
    purchase: str = "on-demand"
    sort: str = "price"


class PlannerService:
    def __init__(self, aws_session: Any = None):
        self.aws_session = aws_session  # boto3.Session; None: standard configuration

    # ------------------------------------------------------------------ prices

    def catalog(self, refresh_regions: list[str] | None = None, warn: Callable[[str], None] | None = None):
        """The price catalog; with `refresh_regions`, fetch live prices first and fall back to the
        cache or the bundled snapshot (with a warning) when AWS cannot be asked."""
        from pricing.catalog import load_catalog

        if refresh_regions:
            from pricing.aws import PriceRefreshError, refresh

            try:
                refresh(refresh_regions, session=self.aws_session)
            except PriceRefreshError as exc:
                if warn:
                    warn(exc.render())
        return load_catalog()

    def prices(self, query: PriceQuery, refresh: bool = False, warn: Callable[[str], None] | None = None):
        """(catalog, matching rows sorted) for `planner prices` and the TUI's target table."""
        from pricing.catalog import check_region, filter_instances, regions, sort_instances

        catalog = self.catalog(None, warn)
        if query.region:
            check_region(catalog.frame, query.region)  # before any network call
        if refresh:
            catalog = self.catalog([query.region] if query.region else regions(catalog.frame), warn)
        rows = filter_instances(catalog.frame, region=query.region, gpu=query.gpu, arch=query.arch,
                                min_gpu_memory_gib=query.min_gpu_memory_gib, max_price=query.max_price,
                                purchase=query.purchase)
        return catalog, sort_instances(rows, query.sort, query.purchase)

    def load(self, path: str | Path) -> WorkloadSpec:
        return load_spec(path)

    # ------------------------------------------------------------------ describe

    def layers(self, spec: WorkloadSpec) -> list[Layer]:
        layers = layers_of(spec)
        if layers is not None:
            return layers
        from runner.bench.introspect import describe  # custom: import the user's model
        from runner.bench.workloads import WorkloadError

        try:
            rows = describe(spec.to_job()["model"])
        except WorkloadError as exc:
            raise SpecError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - the user's module failed on a sample batch
            raise SpecError(f"model.factory: the model failed on a sample batch of shape "
                            f"{list(spec.model.input_shape)} ({type(exc).__name__}: {exc})") from None
        return [Layer(r["name"], int(r["params"]), float(r["forward_flops"]), float(r["activation_elems"]), int(r["kernels"]))
                for r in rows]

    def footprint(self, spec: WorkloadSpec, batch_size: int | None = None) -> Footprint:
        return footprint(spec, self.layers(spec), batch_size)

    # ------------------------------------------------------------------ measure

    def make_job(self, spec: WorkloadSpec, options: BenchOptions, fp: Footprint | None = None) -> dict[str, Any]:
        fp = fp or self.footprint(spec)
        return {
            "spec": spec.to_job(), "device": options.device, "seconds": options.seconds,
            "sweep": options.sweep, "threads": options.threads, "memory_estimate_bytes": fp.total_bytes,
        }

    def check_device(self, device: str) -> None:
        if device == "cuda" and not torch_cuda_available():
            raise InputError("--device cuda: torch sees no CUDA GPU on this machine",
                             hint="use --device cpu (or auto), or run on a machine with an NVIDIA GPU and a CUDA build of torch")

    def bench(self, spec: WorkloadSpec, options: BenchOptions, workdir: Path | None = None,
              on_progress: ProgressFn | None = None, label: str = "local", extra: dict[str, Any] | None = None):
        """Run the bench for `spec` on this machine in a subprocess; return its BenchResult."""
        from runner.local import LocalTarget

        self.check_device(options.device)
        job = {**self.make_job(spec, options), **(extra or {})}
        with tempfile.TemporaryDirectory(prefix="planner-bench-") as tmp:
            target = LocalTarget(job, Path(workdir or tmp), label=label)
            target.start()
            try:
                while True:
                    status = target.poll()
                    if on_progress and status.event:
                        on_progress(label, status.event)
                    if status.state not in ("pending", "running"):
                        break
                    time.sleep(0.1)
                target.wait(30)
            finally:
                target.terminate()  # no-op when it already ended; kills it on Ctrl-C
            result = target.collect()
        if result.status == "invalid":
            raise InputError(result.message)
        if result.status == "error":
            raise RunError(f"the bench on {label} failed: {result.message}")
        return result


# ============================================================================= planning


@dataclass(frozen=True)
class PlanOptions:
    objective: str = "cheapest"
    deadline_seconds: float | None = None
    time_value_per_hour: float | None = None
    local_price_per_hour: float = 0.0
    region: str = "us-east-1"
    purchase: str = "on-demand"

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def parse_targets(text: str) -> list[str]:
    """`local`, later `aws:TYPE` and `auto`; every name checked before anything starts."""
    targets = [t.strip() for t in text.split(",") if t.strip()]
    if not targets:
        raise InputError("--targets: give at least one target, e.g. --targets local")
    for t in targets:
        if t == "local":
            continue
        if t.startswith("aws:") or t == "auto":
            raise InputError(f"--targets: {t!r} needs the remote runner, which is not built yet",
                             hint="use --targets local; AWS targets arrive with the remote runner")
        raise InputError(f"--targets: unknown target {t!r}", hint="use local")
    return list(dict.fromkeys(targets))


def option_from_result(label: str, result: dict[str, Any], spec: WorkloadSpec, options: PlanOptions):
    """One plan option from one journaled bench result (pure)."""
    from planner.decide import Option
    from planner.estimate import StepMeasurement, estimate_training

    target = result.get("target") or label.split("-")[0]
    device = result.get("device", "cpu")
    common = dict(target=target, device=device, source="measured", price_per_hour=options.local_price_per_hour,
                  billing="local", device_name=result.get("device_name", ""))
    if result.get("status") != "ok":
        return Option(**common, fits=result.get("status") != "does_not_fit",
                      note=(result.get("message") or result.get("status", "")).splitlines()[0])
    m = StepMeasurement(result["step_seconds"], result["step_seconds_ci_low"], result["step_seconds_ci_high"],
                        result.get("setup_seconds") or 0.0, result.get("warmup_seconds") or 0.0, result.get("warmup_steps") or 0)
    est = estimate_training(m, spec.total_steps, cloud=False)
    return Option(**common, step_seconds=m.step_seconds, train_seconds=est.seconds,
                  train_seconds_low=est.low, train_seconds_high=est.high)


def plan_from_results(spec: WorkloadSpec, results: dict[str, dict[str, Any]], options: PlanOptions):
    from planner.decide import decide

    opts = [option_from_result(label, r, spec, options) for label, r in sorted(results.items())]
    return decide(opts, options.objective, options.deadline_seconds, options.time_value_per_hour)


def workload_summary(spec: WorkloadSpec) -> dict[str, Any]:
    return {"name": spec.name, "kind": spec.model.kind, "task": spec.task, "samples": spec.data.samples,
            "batch_size": spec.batch_size, "epochs": spec.train.epochs, "steps_per_epoch": spec.steps_per_epoch,
            "total_steps": spec.total_steps, "precision": spec.train.precision, "data_location": spec.data.location}


def plan_document(spec: WorkloadSpec, plan, options: PlanOptions, run_dir: Path | None) -> dict[str, Any]:
    doc = {"workload": workload_summary(spec), **plan.as_dict(), "plan_options": options.as_dict()}
    if run_dir is not None:
        doc["run_dir"] = str(run_dir)
    return doc


def _local_devices(service: "PlannerService") -> list[str]:
    return ["cpu", "cuda"] if torch_cuda_available() else ["cpu"]


def run_plan(service: "PlannerService", spec: WorkloadSpec, spec_text: str | None, targets: list[str],
             options: PlanOptions, bench: BenchOptions, out: Path | None = None,
             on_progress: ProgressFn | None = None, on_result: Callable[[str, Any], None] | None = None):
    """Measure every target, journaling each result the moment it arrives; then plan.
    Returns (plan document, journal)."""
    from planner.journal import RunJournal

    journal = RunJournal.create(spec.name, out)
    journal.write_spec(spec, spec_text)
    journal.write_run({"targets": targets, "plan_options": options.as_dict(), "bench": bench.__dict__})
    results: dict[str, dict[str, Any]] = {}
    for target in targets:
        for device in _local_devices(service):
            label = f"{target}-{device}"
            try:
                result = service.bench(spec, replace(bench, device=device), workdir=journal.path / "work", label=label)
                data = result.to_dict()
            except RunError as exc:  # a failed target is a result too; the others go on
                data = {"status": "error", "device": device, "message": exc.message}
            data["target"] = target
            journal.write_result(label, data)
            results[label] = data
            if on_result:
                on_result(label, data)
    plan = plan_from_results(spec, results, options)
    doc = plan_document(spec, plan, options, journal.path)
    journal.write_plan(doc)
    return doc, journal


def replan(journal_path: str | Path, overrides: dict[str, Any]):
    """Recompute the plan from a run directory; `overrides` replace the saved plan options."""
    from planner.journal import RunJournal

    journal = RunJournal.open(journal_path)
    spec = journal.read_spec()
    saved = journal.read_run().get("plan_options", {})
    merged = {**saved, **{k: v for k, v in overrides.items() if v is not None}}
    options = PlanOptions(**{k: v for k, v in merged.items() if k in PlanOptions.__dataclass_fields__})
    results = journal.read_results()
    if not results:
        raise InputError(f"{journal_path}: the run has no results yet", hint="run `planner run` to measure targets")
    plan = plan_from_results(spec, results, options)
    doc = plan_document(spec, plan, options, journal.path)
    return doc, journal


def validate(service: PlannerService, spec: WorkloadSpec, epochs: int | None, bench: BenchOptions,
             on_progress: ProgressFn | None = None) -> dict[str, Any]:
    """Predict N epochs from a short bench, then really train N epochs in a fresh process and time
    it (wall clock from process start, as the estimate models it)."""
    from planner.estimate import StepMeasurement, estimate_training

    epochs = epochs or spec.train.epochs
    result = service.bench(spec, bench, on_progress=on_progress, label="bench")
    if result.status != "ok":
        raise RunError(f"the bench could not measure the workload: {result.message}")
    m = StepMeasurement(result.step_seconds, result.step_seconds_ci_low, result.step_seconds_ci_high,
                        result.setup_seconds or 0.0, result.warmup_seconds or 0.0, result.warmup_steps)
    steps = spec.steps_per_epoch * epochs
    est = estimate_training(m, steps)
    start = time.perf_counter()
    trained = service.bench(spec, replace(bench, device=result.device), on_progress=on_progress, label="train",
                            extra={"mode": "train", "epochs": epochs})
    actual = time.perf_counter() - start
    return {
        "workload": spec.name, "device": result.device, "device_name": result.device_name, "epochs": epochs,
        "steps": steps, "bench_seconds": bench.seconds, "predicted_seconds": est.seconds,
        "predicted_seconds_low": est.low, "predicted_seconds_high": est.high, "actual_seconds": actual,
        "actual_step_seconds": trained.step_seconds, "predicted_step_seconds": result.step_seconds,
        "error_percent": 100.0 * (est.seconds - actual) / actual,
        "inside_interval": est.low <= actual <= est.high,
    }
