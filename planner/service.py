"""PlannerService: the one API both front ends (CLI and TUI) call.

It turns validated specs into bench jobs, runs targets, and hands results to the pure core. It owns
no presentation: callers pass an `on_progress` callback and render what comes back.
"""

from __future__ import annotations

import datetime as dt
import secrets
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
        from runner.session import BenchSession

        self.check_device(options.device)
        job = {**self.make_job(spec, options), **(extra or {})}
        with tempfile.TemporaryDirectory(prefix="planner-bench-") as tmp:
            target = LocalTarget(job, Path(workdir or tmp), label=label)
            result = BenchSession([target], [], on_progress=on_progress).run()[label]
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
    """`local`, `aws:INSTANCE_TYPE` and `auto`, checked before anything starts."""
    targets = [t.strip() for t in text.split(",") if t.strip()]
    if not targets:
        raise InputError("--targets: give at least one target, e.g. --targets local,aws:g5.xlarge")
    for t in targets:
        if t == "local" or (t.startswith("aws:") and len(t) > 4):
            continue
        if t == "auto":
            continue
        raise InputError(f"--targets: unknown target {t!r}", hint="use local, auto or aws:INSTANCE_TYPE (see `planner prices`)")
    return list(dict.fromkeys(targets))


def target_label(target: str, device: str | None = None) -> str:
    """File-name-safe label: local-cpu, aws-g5.xlarge."""
    return f"local-{device}" if target == "local" else target.replace(":", "-")


def option_from_result(label: str, result: dict[str, Any], spec: WorkloadSpec, options: PlanOptions, catalog=None):
    """One plan option from one journaled bench result; AWS options priced from `catalog` (a frame)
    in the plan's region and purchase option (re-planning may change both)."""
    from planner.decide import Option
    from planner.estimate import StepMeasurement, estimate_training

    target = result.get("target") or label.split("-")[0]
    device = result.get("device", "cpu")
    cloud = target.startswith("aws:")
    common: dict[str, Any] = dict(target=target, device=device, source="measured", price_per_hour=options.local_price_per_hour,
                                  billing="local", device_name=result.get("device_name", ""))
    if cloud:
        from pricing.catalog import hourly_price

        itype = target[4:]
        common.update(price_per_hour=hourly_price(catalog, itype, options.region, options.purchase), billing="ec2",
                      instance_type=itype, region=options.region, purchase=options.purchase)
    if result.get("status") != "ok":
        return Option(**common, fits=result.get("status") != "does_not_fit",
                      note=(result.get("message") or result.get("status", "")).splitlines()[0])
    m = StepMeasurement.from_result(result)
    est = estimate_training(m, spec.total_steps, cloud=cloud)
    return Option(**common, step_seconds=m.step_seconds, train_seconds=est.seconds,
                  train_seconds_low=est.low, train_seconds_high=est.high)


def plan_from_results(spec: WorkloadSpec, results: dict[str, dict[str, Any]], options: PlanOptions, catalog=None):
    from planner.decide import decide

    if catalog is None and any(str(r.get("target", "")).startswith("aws:") for r in results.values()):
        from pricing.catalog import load_catalog

        catalog = load_catalog().frame
    opts = [option_from_result(label, r, spec, options, catalog) for label, r in sorted(results.items())]
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


@dataclass(frozen=True)
class AwsOptions:
    """What `planner run` needs for aws: targets (besides runner.aws.AwsSettings)."""

    settings: Any  # runner.aws.AwsSettings
    bench_budget: float = 2.00
    max_instances: int = 8
    poll_seconds: float = 5.0


def preflight(aws_types: list[str], aws: AwsOptions, catalog) -> tuple[dict[str, float], dict[str, str], float]:
    """Prices, architectures and the worst-case bench cost; refuse before launching anything."""
    from pricing.catalog import hourly_price, instance_facts
    from runner.aws import EXPIRY_GRACE_MINUTES, worst_case_bench_cost

    s = aws.settings
    if len(aws_types) > aws.max_instances:
        raise InputError(f"--targets: {len(aws_types)} AWS instances, more than --max-instances {aws.max_instances}",
                         hint="benchmark fewer instance types at once, or raise --max-instances")
    prices = {t: hourly_price(catalog, t, s.region, s.purchase) for t in aws_types}
    arches = {t: instance_facts(catalog, t, s.region)["arch"] for t in aws_types}
    worst = sum(worst_case_bench_cost(p, s) for p in prices.values())
    if worst > aws.bench_budget:
        detail = ", ".join(f"{t} ${p:.3f}/h" for t, p in prices.items())
        raise InputError(f"refusing to launch: the worst-case bench cost is ${worst:.2f} ({detail}, each for up to "
                         f"{s.max_bench_minutes:g} min + {EXPIRY_GRACE_MINUTES} min grace), over --bench-budget ${aws.bench_budget:.2f}",
                         hint="raise --bench-budget, lower --max-bench-minutes, or benchmark fewer or cheaper instances")
    return prices, arches, worst


def run_plan(service: "PlannerService", spec: WorkloadSpec, spec_text: str | None, targets: list[str],
             options: PlanOptions, bench: BenchOptions, out: Path | None = None,
             on_progress: ProgressFn | None = None, on_result: Callable[[str, Any], None] | None = None,
             aws: AwsOptions | None = None, on_state: Callable[[str, str, float, float], None] | None = None,
             on_choices: Callable[[list], None] | None = None, cancel=None):
    """Measure every target, journaling each result the moment it arrives; then plan.
    `auto` measures here first, predicts every catalog instance, and benchmarks only the candidates
    that could change the decision (planner.decide.select_benchmarks), within the budget.
    Returns (plan document, journal, session). Every instance started is terminated before return,
    also on Ctrl-C and SIGTERM (see runner.session)."""
    from planner.journal import RunJournal
    from runner.aws import AwsSettings
    from runner.local import LocalTarget
    from runner.session import BenchSession

    auto = "auto" in targets
    if auto and "local" not in targets:
        targets = ["local", *targets]
    aws_types = [t[4:] for t in targets if t.startswith("aws:")]
    aws = aws or AwsOptions(AwsSettings(region=options.region, purchase=options.purchase))
    catalog = service.catalog().frame if (aws_types or auto) else None
    # refuse before anything is written or launched; `auto` prices again once it has chosen
    priced = preflight(aws_types, aws, catalog) if aws_types else None
    journal = RunJournal.create(spec.name, out)
    journal.write_spec(spec, spec_text)
    # Unique per run whatever the directory is called: it names the run's S3 keys and instance tags.
    run_id = f"{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
    run_info: dict[str, Any] = {"run_id": run_id, "targets": targets, "plan_options": options.as_dict(), "bench": bench.__dict__}
    journal.write_run(run_info)
    fp = service.footprint(spec)
    meta: dict[str, dict[str, Any]] = {}

    def record(label: str, result) -> None:
        data = {**result.to_dict(), **meta.get(label, {})}
        journal.write_result(label, data)  # on disk before anything else looks at it
        if on_result:
            on_result(label, data)

    local_targets = []
    for device in _local_devices(service) if "local" in targets else []:
        label = target_label("local", device)
        meta[label] = {"target": "local"}
        local_targets.append(LocalTarget(service.make_job(spec, replace(bench, device=device), fp), journal.path / "work", label))
    if auto:  # measure here first: the predictions scale this machine's measurement
        BenchSession(local_targets, [], None, on_state=on_state, on_result=record, on_progress=on_progress,
                     cancel=cancel).run()
        local_targets = []
        local = journal.read_results().get("local-cpu", {})
        if local.get("status") == "ok":
            predicted, _ = estimate_plan(service, spec, options, local, include_local=False)
            _cloud, choices = benchmark_choices(predicted, options, aws.settings.max_bench_minutes, aws.bench_budget,
                                                aws.max_instances)
            aws_types += [c.target[4:] for c in choices if c.benchmark and c.target[4:] not in aws_types]
            run_info["auto"] = [c.__dict__ for c in choices]
            journal.write_run(run_info)
            if on_choices:
                on_choices(choices)
        priced = preflight(aws_types, aws, catalog) if aws_types else None
    aws_run, aws_targets = None, []
    if aws_types:
        from runner.aws import AwsRun, AwsTarget

        prices, arches, _worst = priced
        aws_run = AwsRun(aws.settings, run_id, session=service.aws_session)
        job = service.make_job(spec, replace(bench, device="auto"), fp)  # CUDA where the instance has it
        for itype in aws_types:
            label = target_label(f"aws:{itype}")
            meta[label] = {"target": f"aws:{itype}", "instance_type": itype, "region": aws.settings.region,
                           "purchase": aws.settings.purchase}
            aws_targets.append(AwsTarget(aws_run, itype, job, label, prices[itype], arches[itype]))

    session = BenchSession(local_targets, aws_targets, aws_run, poll_seconds=aws.poll_seconds,
                           on_state=on_state, on_result=record, on_progress=on_progress, cancel=cancel)
    session.run()
    plan = plan_from_results(spec, journal.read_results(), options, catalog)
    doc = plan_document(spec, plan, options, journal.path)
    if aws_targets:
        doc["bench_cost_usd"] = session.billed_usd()
    if auto:
        doc["auto"] = run_info.get("auto", [])
    journal.write_plan(doc)
    return doc, journal, session


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


STEADY_MACHINE_PERCENT = 5.0  # the benches before and after the run agree this closely: the machine held its speed
STEADY_RUN_SPREAD_PERCENT = 15.0  # p10-p90 of a run's 20 windows; steady runs here spread 3-9%


def validate(service: PlannerService, spec: WorkloadSpec, epochs: int | None, bench: BenchOptions,
             on_progress: ProgressFn | None = None, recheck: bool = True) -> dict[str, Any]:
    """Predict N epochs from a short bench, then really train N epochs in a fresh process and time
    it (wall clock from process start, as the estimate models it).

    With `recheck`, a second bench of the same length runs after the training. A prediction can
    only be as right as the machine is steady: when the benches before and after the run disagree
    by more than STEADY_MACHINE_PERCENT, the machine's speed changed around the run (a shared
    host's neighbours, clock boost), and an error of that size may well be the machine's.
    The run's own 20 window means show the same from inside (`actual_window_spread_percent`:
    p90 - p10 of the windows, over their median): a machine can slow down during a run and recover
    before the second bench. `machine_steady` needs both: benches within STEADY_MACHINE_PERCENT
    and windows within STEADY_RUN_SPREAD_PERCENT."""
    from planner.estimate import StepMeasurement, estimate_training

    epochs = epochs or spec.train.epochs
    result = service.bench(spec, bench, on_progress=on_progress, label="bench")
    if result.status != "ok":
        raise RunError(f"the bench could not measure the workload: {result.message}")
    steps = spec.steps_per_epoch * epochs
    est = estimate_training(StepMeasurement.from_result(result.to_dict()), steps)
    start = time.perf_counter()
    trained = service.bench(spec, replace(bench, device=result.device), on_progress=on_progress, label="train",
                            extra={"mode": "train", "epochs": epochs})
    # the training process's own life, spawn to exit, as a user's `python train.py` would take;
    # the planner's polling around it is not part of the run
    actual = trained.process_seconds or (time.perf_counter() - start)
    out: dict[str, Any] = {
        "workload": spec.name, "device": result.device, "device_name": result.device_name, "epochs": epochs,
        "steps": steps, "bench_seconds": bench.seconds, "predicted_seconds": est.seconds,
        "predicted_seconds_low": est.low, "predicted_seconds_high": est.high, "actual_seconds": actual,
        "actual_step_seconds": trained.step_seconds, "predicted_step_seconds": result.step_seconds,
        "predicted_one_time_seconds": est.one_time_seconds, "actual_one_time_seconds": actual - (trained.wall_seconds or 0.0),
        "error_percent": 100.0 * (est.seconds - actual) / actual,
        "inside_interval": est.low <= actual <= est.high,
        "actual_window_spread_percent": window_spread_percent(trained.step_seconds_windows),
        "recheck_step_seconds": None, "machine_drift_percent": None, "machine_steady": None,
    }
    if recheck:
        after = service.bench(spec, replace(bench, device=result.device), on_progress=on_progress, label="recheck")
        if after.status == "ok" and after.step_seconds:
            drift = 100.0 * (after.step_seconds - result.step_seconds) / result.step_seconds
            out.update(recheck_step_seconds=after.step_seconds, machine_drift_percent=drift,
                       machine_steady=unsteady_reason(drift, out["actual_window_spread_percent"]) is None)
    return out


def unsteady_reason(drift_percent: float, spread_percent: float | None) -> str | None:
    """Why the machine did not hold its speed around a validate run, or None when it did."""
    if abs(drift_percent) > STEADY_MACHINE_PERCENT:
        return f"the machine's own speed moved by more than {STEADY_MACHINE_PERCENT:g}% around the run"
    if spread_percent is not None and spread_percent > STEADY_RUN_SPREAD_PERCENT:
        return f"the benches agree, but the run's own step time varied by more than {STEADY_RUN_SPREAD_PERCENT:g}%"
    return None


def window_spread_percent(windows: list[float]) -> float | None:
    """(p90 - p10) / median of a run's window means, in percent; None for fewer than 5 windows."""
    from runner.bench.stats import percentile

    if len(windows) < 5:
        return None
    s = sorted(windows)
    return 100.0 * (percentile(s, 0.9) - percentile(s, 0.1)) / percentile(s, 0.5)


# ============================================================================= predictions


SLOWEST_GPU = "T4"  # the slowest GPU of the table: an A10G, without published figures, is surely no slower


def gpu_specs_by_name() -> dict[str, Any]:
    from planner.predict import GpuSpec
    from pricing.catalog import load_gpu_specs

    specs = {}
    for _, r in load_gpu_specs().iterrows():
        def num(v):
            return None if v != v else float(v)  # NaN -> None

        specs[r["gpu_name"]] = GpuSpec(r["gpu_name"], float(r["memory_gib"]), float(r["memory_bandwidth_gbps"]),
                                       num(r["fp32_tflops"]), {"bf16": num(r["bf16_tensor_tflops_dense"]),
                                                               "fp16": num(r["fp16_tensor_tflops_dense"])})
    return specs


def predicted_options(spec: WorkloadSpec, fp, local: dict[str, Any], rows, options: PlanOptions,
                      gpu_specs: dict[str, Any], calibration: dict[str, float] | None = None) -> list:
    """A predicted Option for every catalog row (pure given its inputs)."""
    from planner.decide import Option
    from planner.estimate import StepMeasurement, estimate_training
    from planner.footprint import sample_bytes
    from planner.predict import physical_cores, predict_cpu, predict_gpu

    calibration = calibration or {}
    layers = list(fp.layers)
    flops_per_step = fp.train_flops_per_sample * spec.batch_size
    host_bytes = spec.batch_size * sample_bytes(spec) if spec.data.location == "host" else 0.0
    out = []
    for _, r in rows.iterrows():
        itype, gpus = r["instance_type"], int(r["gpu_count"])
        price_col = "ondemand_usd_per_hour" if options.purchase == "on-demand" else "spot_usd_per_hour_median"
        price = r[price_col]
        if price != price:  # NaN: not offered (spot)
            continue
        common = dict(target=f"aws:{itype}", source="predicted", price_per_hour=float(price), billing="ec2",
                      instance_type=itype, region=r["region"], purchase=options.purchase)
        if gpus:
            gpu = gpu_specs.get(r["gpu_name"])
            name = r["gpu_name"] + (f" (1 of {gpus})" if gpus > 1 else "")
            memory = float(r["gpu_memory_gib"]) * 2**30
            fits = fp.total_bytes <= 0.9 * memory
            note = "" if fits else f"needs ~{fp.total_bytes / 2**30:.1f} GiB of {memory / 2**30:.0f} GiB"
            pred = predict_gpu(layers, gpu, spec.batch_size, spec.train.precision, spec.train.optimizer, host_bytes,
                               calibration.get(r["gpu_name"]), slowest=gpu_specs.get(SLOWEST_GPU)) if gpu else None
            device = "cuda"
        else:
            cores = physical_cores(int(r["vcpus"]), r["arch"], itype)
            name = f"{int(r['vcpus'])} vCPU {r['arch']}"
            fits = fp.total_bytes <= 0.9 * float(r["memory_gib"]) * 2**30
            note = "" if fits else "does not fit in memory"
            pred = predict_cpu(local["step_seconds"], int(local.get("threads") or 1), cores, flops_per_step,
                               calibration.get(f"cpu:{itype.split('.')[0]}"))
            device = "cpu"
        if pred is None or pred.step_seconds is None:
            out.append(Option(**common, device=device, device_name=name, fits=fits,
                              note=pred.note if pred else f"no spec for GPU {r['gpu_name']}"))
            continue
        m = StepMeasurement(pred.step_seconds, pred.low, pred.high, float(local.get("setup_seconds") or 0.0))
        est = estimate_training(m, spec.total_steps, cloud=True)
        out.append(Option(**common, device=device, device_name=name, step_seconds=pred.step_seconds,
                          train_seconds=est.seconds, train_seconds_low=est.low, train_seconds_high=est.high,
                          fits=fits, note=note or pred.note))
    return out


def estimate_plan(service: PlannerService, spec: WorkloadSpec, options: PlanOptions, local: dict[str, Any],
                  gpu: bool | None = None, include_local: bool = True):
    """The plan over the local measurement and a prediction for every catalog instance in the region."""
    from planner.decide import decide
    from pricing.catalog import filter_instances

    from planner.calibration import corrections

    catalog = service.catalog()
    rows = filter_instances(catalog.frame, region=options.region, gpu=gpu)
    predicted = predicted_options(spec, service.footprint(spec), local, rows, options, gpu_specs_by_name(), corrections())
    measured = [option_from_result("local-cpu", {**local, "target": "local"}, spec, options)] if include_local else []
    plan = decide(measured + predicted, options.objective, options.deadline_seconds, options.time_value_per_hour)
    return plan, catalog


def benchmark_choices(plan, options: PlanOptions, aws_minutes: float = 20.0, budget: float = 2.0, max_instances: int = 8):
    """(the plan among cloud options only, which cloud options to benchmark). The selection runs on
    the cloud options alone: a free local CPU would make every GPU's break-even infinite."""
    from planner.decide import Option, decide, select_benchmarks
    from runner.aws import AwsSettings, worst_case_bench_cost

    cloud = [o for o in plan.options if o.source == "predicted"]
    base = [Option(**{k: getattr(o, k) for k in Option.__dataclass_fields__}) for o in cloud]
    cloud_plan = decide(base, options.objective, options.deadline_seconds, options.time_value_per_hour)
    settings = AwsSettings(max_bench_minutes=aws_minutes)
    worst = {o.target: worst_case_bench_cost(o.price_per_hour, settings) for o in cloud}
    return cloud_plan, select_benchmarks(cloud_plan, worst, budget, max_instances)


def calibration_rows(journal_path: str | Path) -> list[dict[str, Any]]:
    """measured vs predicted step seconds for every measured device of a run (AWS GPU and CPU
    instances, a local CUDA GPU); CPU instances are predicted from the run's local measurement."""
    from planner.calibration import gpu_model
    from planner.journal import RunJournal
    from planner.predict import physical_cores, predict_cpu, predict_gpu
    from pricing.catalog import instance_facts, load_catalog

    journal = RunJournal.open(journal_path)
    spec = journal.read_spec()
    results = journal.read_results()
    fp = footprint(spec, layers_of(spec)) if layers_of(spec) is not None else None
    if fp is None:
        return []  # custom models: their layers need the user's module; not calibrated
    specs = gpu_specs_by_name()
    local = results.get("local-cpu", {})
    frame = load_catalog().frame
    rows = []
    for label, r in results.items():
        if r.get("status") != "ok" or label == "local-cpu":
            continue
        measured = r["step_seconds"]
        if r.get("device") == "cuda":
            model = gpu_model(r.get("device_name", ""), list(specs))
            if model is None:
                continue
            from planner.footprint import sample_bytes

            host = spec.batch_size * sample_bytes(spec) if spec.data.location == "host" else 0.0
            pred = predict_gpu(list(fp.layers), specs[model], spec.batch_size, spec.train.precision, spec.train.optimizer, host)
            device = model
        elif str(r.get("target", "")).startswith("aws:") and local.get("status") == "ok":
            itype = r["target"][4:]
            facts = instance_facts(frame, itype, r.get("region") or "us-east-1")
            if facts["gpu_count"]:
                continue  # a GPU instance measured without its GPU says nothing about either model
            pred = predict_cpu(local["step_seconds"], int(local.get("threads") or 1),
                               physical_cores(facts["vcpus"], facts["arch"], itype), fp.train_flops_per_sample * spec.batch_size)
            device = f"cpu:{itype.split('.')[0]}"
        else:
            continue
        if pred.step_seconds:
            rows.append({"device": device, "workload": spec.name, "measured_step_seconds": measured,
                         "predicted_step_seconds": pred.step_seconds, "source": str(journal.path)})
    return rows
