"""How good is the device model? Predicted vs measured step time on every device with measurements.

- This machine's CPU, across core counts: measure each example with 1 thread, predict 2 threads
  with the CPU model, measure 2 threads, compare (the part of the CPU model a 2-core machine can check).
- A local CUDA GPU, when present: measure each example on it and compare with the roofline prediction
  for that GPU model.
- Run journals given as arguments (measured AWS instances): the same comparison as `planner calibrate`.

    make bench-predict            # or: python benchmarks/predict_accuracy.py [RUN_DIR ...]
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.core.predict import predict_cpu, predict_gpu  # noqa: E402
from planner.service import BenchOptions, PlannerService, SpecWorkload  # noqa: E402
from planner.service.bench import torch_cuda_available  # noqa: E402
from planner.service.calibration import gpu_model  # noqa: E402
from planner.workload.footprint import sample_bytes  # noqa: E402
from planner.workload.spec import load_spec  # noqa: E402
from pricing.catalog import gpu_specs_by_name  # noqa: E402

EXAMPLES = ["surface-mlp", "small-cnn", "lstm-classifier", "tiny-transformer", "custom-policy"]


def main(run_dirs: list[str]) -> int:
    service = PlannerService()
    rows = []
    for name in EXAMPLES:
        spec = load_spec(ROOT / "examples" / f"{name}.yaml")
        fp = service.workloads.footprint(spec)
        one = service.bench(SpecWorkload(spec), BenchOptions(device="cpu", seconds=6, threads=1))
        two = service.bench(SpecWorkload(spec), BenchOptions(device="cpu", seconds=6, threads=2))
        pred = predict_cpu(
            one.step_seconds, 1, 2, fp.train_flops_per_sample * spec.batch_size
        ).step_seconds
        rows.append(("cpu 1 -> 2 threads", name, two.step_seconds, pred))
        if torch_cuda_available():
            specs = gpu_specs_by_name()
            cuda = service.bench(SpecWorkload(spec), BenchOptions(device="cuda", seconds=6))
            model = gpu_model(cuda.device_name, list(specs))
            if model:
                host = spec.batch_size * sample_bytes(spec) if spec.data.location == "host" else 0.0
                p = predict_gpu(
                    list(fp.layers),
                    specs[model],
                    spec.batch_size,
                    spec.train.precision,
                    spec.train.optimizer,
                    host,
                )
                if p.step_seconds:
                    rows.append((model, name, cuda.step_seconds, p.step_seconds))
    if run_dirs:  # what `planner calibrate --dry-run` compares
        rows += [
            (p.device, p.workload, p.measured_step_seconds, p.predicted_step_seconds)
            for p in service.calibrate(list(run_dirs), dry_run=True).points
        ]
    print("| device | workload | measured | predicted | error |\n|---|---|---:|---:|---:|")
    errors: dict[str, list[float]] = {}
    for device, workload, measured, predicted in rows:
        error = 100 * (predicted - measured) / measured
        errors.setdefault(device, []).append(abs(error))
        print(
            f"| {device} | {workload} | {measured * 1e3:.3f} ms | {predicted * 1e3:.3f} ms | {error:+.1f}% |"
        )
    for device, values in errors.items():
        print(
            f"\n{device}: median absolute error {statistics.median(values):.1f}%, worst {max(values):.1f}% over {len(values)} workloads"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
