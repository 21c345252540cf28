"""Data-parallel options in the plan: one per GPU count, priced whole, ranked apart, skipped honestly."""

from __future__ import annotations

from dataclasses import asdict, replace

from planner.core.decide import decide, select_benchmarks
from planner.core.document_json import plan_json
from planner.core.predict import GpuSpec
from planner.core.predict.fabric import Interconnect
from planner.core.predicted import Hardware, InstanceFacts, gpu_plans, predicted_candidates
from planner.report.remarks import note_text
from planner.workload.footprint import footprint
from planner.workload.spec import load_spec, parse_spec
from runner.bench.result import BenchResult
from tests.conftest import EXAMPLES

A100 = GpuSpec("A100", 40, 1555, 19.5, {"tf32": 156, "bf16": 312, "fp16": 312}, "ampere")
P4D = InstanceFacts("p4d.24xlarge", "us-east-1", 96, 1152, "x86_64", "A100", 8, 40, 21.96, None)
SINGLE = InstanceFacts("g9.xlarge", "us-east-1", 8, 32, "x86_64", "A100", 1, 40, 2.0, None)
CPU = InstanceFacts("c7i.xlarge", "us-east-1", 4, 8, "x86_64", "", 0, None, 0.18, None)
LINK = Interconnect("p4d.24xlarge", 8, "nvswitch", {0: 600.0}, None, 400.0, True)
HARDWARE = Hardware({"A100": A100}, {}, interconnects={"p4d.24xlarge": LINK})
LOCAL = BenchResult(
    status="ok",
    device="cpu",
    step_seconds=0.006,
    step_seconds_ci_low=0.0059,
    step_seconds_ci_high=0.0061,
    threads=2,
    setup_seconds=1.0,
)


def candidates(spec, instances=(P4D, SINGLE, CPU), hardware=HARDWARE):
    return predicted_candidates(
        spec, footprint(spec), LOCAL, list(instances), "on-demand", hardware
    )


def mlp(**train):
    spec = load_spec(EXAMPLES / "surface-mlp.yaml")
    return spec.model_copy(update={"train": spec.train.model_copy(update=train)}) if train else spec


def test_a_multi_gpu_instance_is_offered_at_every_count_and_priced_whole():
    p4d = [c for c in candidates(mlp()) if c.instance_type == "p4d.24xlarge"]
    assert [(c.gpus_used, c.instances) for c in p4d] == [
        (1, 1),
        (2, 1),
        (4, 1),
        (8, 1),
        (16, 2),
        (32, 4),
    ]
    assert [c.price_per_hour for c in p4d] == [21.96] * 4 + [43.92, 87.84]
    assert {c.device_name for c in p4d} == {"A100"}
    assert "1 of its 8 GPUs used; priced for the whole instance" in note_text(p4d[0].note)
    assert p4d[0].scaling_efficiency is None and 0 < p4d[3].scaling_efficiency < 1
    assert "predicted only, on paper" in note_text(p4d[4].note) and "EFA" in note_text(p4d[4].note)
    single = [c for c in candidates(mlp()) if c.instance_type == "g9.xlarge"]
    assert [(c.gpus_used, c.device_name) for c in single] == [(1, "A100")]
    assert [c.gpus_used for c in candidates(mlp()) if c.device == "cpu"] == [None]


def test_the_mlp_is_predicted_to_scale_poorly_and_its_options_say_so():
    for c in candidates(mlp(), instances=(P4D,)):
        if c.gpus_used > 1:
            assert c.scaling_efficiency < 0.5
            assert "scales poorly" in note_text(c.note)


def test_train_gpus_limits_the_counts_and_one_means_no_data_parallelism():
    assert [c.gpus_used for c in candidates(mlp(gpus=4), instances=(P4D,))] == [1, 2, 4]
    assert [c.gpus_used for c in candidates(mlp(gpus=1), instances=(P4D,))] == [1]
    assert gpu_plans(P4D, None, None) == [
        (1, 1)
    ]  # no interconnect facts: the single-GPU option only


def test_a_count_that_does_not_divide_the_batch_is_skipped_with_a_note():
    base = load_spec(EXAMPLES / "small-cnn.yaml").model_dump(mode="json")
    base["train"]["batch_size"] = 12  # splits over 1, 2, 4 GPUs, not 8, 16 or 32
    spec = parse_spec(base)
    by_count = {c.gpus_used: c for c in candidates(spec, instances=(P4D,))}
    assert all(by_count[n].step is not None for n in (1, 2, 4))
    for n in (8, 16, 32):
        assert by_count[n].step is None and "does not split evenly over" in note_text(
            by_count[n].note
        )


def test_each_count_is_its_own_option_in_the_plan_and_json():
    opts = [c.option(2000) for c in candidates(mlp())]
    plan = decide(opts, "fastest")
    keys = [o.key for o in plan.options]
    assert len(keys) == len(set(keys))
    ranks = [o.rank for o in plan.options if o.rank is not None]
    assert ranks == list(range(1, len(ranks) + 1))  # every usable option ranked once
    doc = plan_json(plan)
    rec = doc["recommendation"]
    assert all("gpus_used" in o and "scaling_efficiency" in o for o in doc["options"])
    assert (
        sum(
            o["target"] == rec["target"]
            and o["device"] == rec["device"]
            and o["gpus_used"] == rec["gpus_used"]
            for o in doc["options"]
        )
        == 1
    )
    assert "gpus_used" in doc["recommendation"]


def test_only_single_gpu_options_are_chosen_for_a_paid_benchmark():
    opts = [
        replace(c.option(2000), source="predicted") for c in candidates(mlp()) if c.billing == "ec2"
    ]
    plan = decide(opts, "cheapest")
    choices = select_benchmarks(plan, {}, 100.0, 10)
    chosen = {c.target for c in choices if c.benchmark}
    assert len({c.target for c in choices}) == len(choices)  # one choice per instance type
    single = {o.target for o in plan.options if (o.gpus_used or 1) == 1 and o.instances == 1}
    assert (
        chosen and chosen <= single
    )  # a benchmark measures an instance's one-GPU option (or a CPU instance)
    assert any(
        (o.gpus_used or 0) > 1 for o in plan.options
    )  # there were data-parallel options to leave out
    assert all(
        "(" not in c.target for c in choices
    )  # a benchmark target is an instance type, never a GPU count
    assert chosen <= {o.target for o in plan.options}
    assert asdict(plan.options[0]).keys() >= {"gpus_used", "instances", "scaling_efficiency"}
