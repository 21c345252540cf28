"""PlannerService: the one API both front ends (CLI and TUI) call.

It turns validated specs into bench jobs, runs targets, and hands results to the pure core. It owns
no presentation: callers pass an `on_progress` callback and render what comes back.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
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
              on_progress: ProgressFn | None = None, label: str = "local"):
        """Run the bench for `spec` on this machine in a subprocess; return its BenchResult."""
        from runner.local import LocalTarget

        self.check_device(options.device)
        job = self.make_job(spec, options)
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
