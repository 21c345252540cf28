"""`planner calibrate RUN_DIR...`: each measured device of saved runs against the device model's prediction for it,
appended to the calibration file (planner/service/calibration.py), and the corrections now in force."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from planner.core.candidates import LOCAL
from planner.core.predict import physical_cores, predict_cpu, predict_gpu
from planner.journal import Measured, RunJournal
from planner.service.calibration import (
    Calibration,
    CalibrationPoint,
    append_rows,
    corrections,
    gpu_model,
)
from planner.service.predictions import hardware
from planner.workload.footprint import layers_of, sample_bytes

if TYPE_CHECKING:
    import pandas as pd

    from planner.core.predict import Prediction
    from planner.core.predicted import Hardware
    from planner.service.describe import Workloads
    from planner.workload.footprint import Footprint
    from planner.workload.spec import WorkloadSpec


def calibrate(workloads: Workloads, run_dirs: list[str], dry_run: bool = False) -> Calibration:
    """Measured against predicted step times of every measured device of the runs, appended to the calibration file
    (not on a `dry_run`), and the corrections now in force. Raises JournalError naming a damaged run's file and
    field, RunError (the file cannot be written)."""
    rows = [row for run_dir in run_dirs for row in calibration_rows(workloads, run_dir)]
    path = append_rows(rows) if rows and not dry_run else None
    return Calibration(rows, path, corrections())


def calibration_rows(workloads: Workloads, journal_path: str | Path) -> list[CalibrationPoint]:
    """Measured vs predicted step seconds for every measured device of a run (AWS GPU and CPU instances, a local
    CUDA GPU); CPU instances are predicted from the run's local measurement."""
    from pricing.catalog import load_catalog

    journal = RunJournal.open(journal_path)
    spec = journal.read_spec()
    if layers_of(spec) is None:
        return []  # custom models: their layers need the user's module; not calibrated
    results = journal.read_results()
    fp = workloads.footprint(spec)
    facts_of = hardware()
    local = results.get(LOCAL.label("cpu"))
    frame = load_catalog().frame
    rows = []
    for label, m in results.items():
        r = m.result
        if r.status != "ok" or label == LOCAL.label("cpu") or (r.processes or 1) > 1:
            continue  # a data-parallel step says nothing about one device's model
        predicted = (
            _gpu_predicted(spec, fp, facts_of, r.device_name)
            if r.device == "cuda"
            else _cpu_predicted(spec, fp, facts_of, m, local, frame)
        )
        if predicted is None:
            continue
        device, pred = predicted
        if pred.step_seconds and r.step_seconds:
            point = CalibrationPoint(
                device, spec.name, r.step_seconds, pred.step_seconds, str(journal.path)
            )
            rows.append(point)
    return rows


def _gpu_predicted(
    spec: WorkloadSpec, fp: Footprint, facts_of: Hardware, device_name: str
) -> tuple[str, Prediction] | None:
    """A GPU's model and the device model's prediction for it (None: a GPU the model does not know)."""
    model = gpu_model(device_name, list(facts_of.gpus))
    if model is None:
        return None
    host = spec.batch_size * sample_bytes(spec) if spec.data.location == "host" else 0.0
    pred = predict_gpu(
        list(fp.layers),
        facts_of.gpus[model],
        spec.batch_size,
        spec.train.precision,
        spec.train.optimizer,
        host,
    )
    return model, pred


def _cpu_predicted(
    spec: WorkloadSpec,
    fp: Footprint,
    facts_of: Hardware,
    m: Measured,
    local: Measured | None,
    frame: pd.DataFrame,
) -> tuple[str, Prediction] | None:
    """A rented CPU instance's family and its prediction scaled from this machine's measurement (None: not a rented
    CPU instance, or nothing measured here to scale from)."""
    from pricing.catalog import instance_facts

    here = local.result if local is not None and local.result.status == "ok" else None
    itype = m.target.instance_type
    if not (m.target.cloud and itype and here is not None and here.step_seconds is not None):
        return None
    facts = instance_facts(frame, itype, m.region or "us-east-1")
    if facts["gpu_count"]:
        return None  # a GPU instance measured without its GPU says nothing about either model
    family = itype.split(".")[0]
    pred = predict_cpu(
        here.step_seconds,
        int(here.threads or 1),
        physical_cores(facts["vcpus"], facts["arch"], itype),
        fp.train_flops_per_sample * spec.batch_size,
        local=facts_of.local_cpu,
        target=facts_of.cpus.get(family),
        precision=spec.train.precision,
    )
    return f"cpu:{family}", pred
