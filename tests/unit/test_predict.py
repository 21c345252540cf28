"""The device model's properties, and the rule that picks what to benchmark, with plain numbers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.core.decide import Option, decide, select_benchmarks
from planner.core.predict import (
    CpuFacts,
    GpuSpec,
    kernels_per_step,
    math_mode,
    predict_cpu,
    predict_gpu,
)
from planner.core.remarks import Worded
from planner.report.choices import choice_reason
from planner.report.remarks import word
from planner.workload.footprint import Layer, footprint
from planner.workload.spec import load_spec, parse_spec
from tests.conftest import EXAMPLES

T4 = GpuSpec("T4", 16, 320, 8.1, {"bf16": None, "fp16": 65}, "turing")
A100 = GpuSpec("A100", 40, 1555, 19.5, {"tf32": 156, "bf16": 312, "fp16": 312}, "ampere")
V100 = GpuSpec("V100", 16, 900, 15.7, {"fp16": 125}, "volta")
A10G = GpuSpec("A10G", 24, 600, None, {"bf16": None, "fp16": None})

_flops = st.floats(min_value=1e3, max_value=1e12)
_elems = st.floats(min_value=1, max_value=1e7)


def layer(flops: float, elems: float, params: int = 1000) -> Layer:
    return Layer("l", params, flops, elems)


@settings(max_examples=300, deadline=None)
@given(_flops, _flops, _elems, st.integers(1, 4096))
def test_more_flops_is_never_faster(f1, f2, elems, batch):
    lo, hi = sorted((f1, f2))
    t_lo = predict_gpu([layer(lo, elems)], A100, batch, "fp32", "adam").step_seconds
    t_hi = predict_gpu([layer(hi, elems)], A100, batch, "fp32", "adam").step_seconds
    assert t_hi >= t_lo


@settings(max_examples=300, deadline=None)
@given(
    _elems,
    st.floats(min_value=100, max_value=5000),
    st.floats(min_value=100, max_value=5000),
    st.integers(1, 4096),
)
def test_higher_bandwidth_is_never_slower_for_memory_bound_layers(elems, bw1, bw2, batch):
    lo, hi = sorted((bw1, bw2))
    elementwise = [layer(elems, elems, params=0)]  # 1 FLOP per element: memory-bound
    slow = predict_gpu(elementwise, GpuSpec("x", 16, lo, 10, {}), batch, "fp32", "sgd").step_seconds
    fast = predict_gpu(elementwise, GpuSpec("y", 16, hi, 10, {}), batch, "fp32", "sgd").step_seconds
    assert fast <= slow


def test_small_mlp_is_launch_bound_and_slower_per_sample_than_a_large_one():
    small = load_spec(EXAMPLES / "surface-mlp.yaml")
    big = parse_spec(
        {
            **small.model_dump(mode="json"),
            "model": {"kind": "mlp", "input_size": 1024, "hidden": [4096, 4096], "outputs": 1000},
            "data": {"samples": 40000, "task": "classification"},
            "train": {"batch_size": 512, "epochs": 1},
        }
    )

    def per_sample(spec, batch):
        layers = list(footprint(spec).layers)
        p = predict_gpu(layers, A100, batch, "fp32", spec.train.optimizer)
        return p, p.step_seconds / batch

    tiny_batch, tiny_per_sample = per_sample(small, 64)
    large_batch, large_per_sample = per_sample(big, 512)
    assert tiny_batch.step_seconds == pytest.approx(
        tiny_batch.launch_seconds
    )  # the launches are the step
    assert (
        tiny_per_sample > large_per_sample / 5
    )  # per sample, the tiny net gains little from the GPU
    # and a bigger batch of the small net costs no more per step: still launch-bound
    assert per_sample(small, 40000)[0].step_seconds < 2 * tiny_batch.step_seconds


def test_precision_uses_tensor_cores_and_missing_figures_are_not_guessed():
    # Changed on purpose (issue 14): the A10G now has sourced figures, so it is predicted like any
    # other GPU instead of being bounded between "compute is free" and "as slow as a T4"; bf16 on
    # Turing/Volta is predicted as what PyTorch does there (emulated in fp32) instead of "not predicted".
    layers = [layer(1e12, 10)]
    fp32 = predict_gpu(layers, A100, 1, "fp32", "adam").step_seconds
    bf16 = predict_gpu(layers, A100, 1, "bf16", "adam").step_seconds
    assert bf16 < fp32 / 5
    none = predict_gpu(layers, A10G, 1, "fp32", "adam")  # a GPU without figures: not guessed
    assert none.step_seconds is None and "A10G" in word(none.note)
    t4_bf16 = predict_gpu(layers, T4, 1, "bf16", "adam")
    t4_fp16 = predict_gpu(layers, T4, 1, "fp16", "adam")
    assert t4_bf16.step_seconds > 5 * t4_fp16.step_seconds and "use fp16" in word(t4_bf16.note)


def test_host_data_adds_the_copy_over_pcie():
    layers = [layer(1e3, 10)]
    on_device = predict_gpu(layers, A100, 1024, "fp32", "adam").step_seconds
    copied = predict_gpu(layers, A100, 1024, "fp32", "adam", host_bytes_per_step=1.2e9).step_seconds
    assert copied == pytest.approx(on_device + 0.1)


def test_cpu_scaling_follows_amdahl():
    big_step = 1e12  # plenty of parallel work
    assert predict_cpu(1.0, 2, 8, big_step).step_seconds == pytest.approx(0.25, rel=0.01)
    tiny = predict_cpu(1.0, 2, 8, 1e3).step_seconds  # no parallel work: more cores do not help
    assert tiny == pytest.approx(1.0, rel=0.01)
    p = predict_cpu(1.0, 2, 8, 1e12)
    assert (p.low, p.high) == pytest.approx((p.step_seconds * 0.6, p.step_seconds * 1.4))


def test_kernel_count_grows_with_layers():
    assert kernels_per_step([layer(1, 1)] * 10, "adam") > kernels_per_step(
        [layer(1, 1)] * 2, "adam"
    )


def conv_net(params: int = 25_000_000) -> list[Layer]:
    """A ResNet-like step: convolutions, then the bandwidth-bound work around them."""
    return [
        Layer("conv", params, 4e9, 1e7, kernels=50, op="conv", param_tensors=50),
        Layer("bn", 50_000, 0.0, 1e7, kernels=50, op="norm", param_tensors=100),
        Layer("relu", 0, 0.0, 1e7, kernels=50, op="elementwise"),
        Layer("fc", 2_000_000, 4e6, 1000, op="gemm", param_tensors=2),
    ]


def test_every_catalog_gpu_is_predicted_for_every_precision():
    from pricing.catalog import gpu_specs_by_name

    for gpu in gpu_specs_by_name().values():
        for precision in ("fp32", "tf32", "bf16", "fp16"):
            p = predict_gpu(conv_net(), gpu, 64, precision, "sgd")
            assert p.step_seconds and p.low < p.step_seconds < p.high, (gpu.name, precision, p.note)
            if precision == "bf16" and gpu.arch in ("volta", "turing"):
                assert "use fp16" in word(p.note)


def test_what_pytorch_runs_in_each_precision():
    assert math_mode("conv", "fp32", "ampere") == "tf32"  # cuDNN allows TF32 by default
    assert math_mode("gemm", "fp32", "ampere") == "fp32"  # matmuls do not
    assert math_mode("gemm", "tf32", "hopper") == "tf32"
    assert (
        math_mode("conv", "fp32", "volta") == "fp32"
        and math_mode("gemm", "tf32", "turing") == "fp32"
    )
    assert (
        math_mode("gemm", "bf16", "volta") == "bf16-emulated"
        and math_mode("gemm", "bf16", "ampere") == "bf16"
    )
    assert math_mode("elementwise", "fp16", "ampere") is None  # bandwidth-bound
    gemm = [Layer("ff", 4_000_000, 4e9, 4000, op="gemm", param_tensors=2)]
    assert (
        predict_gpu(gemm, A100, 256, "tf32", "adam").step_seconds
        < predict_gpu(gemm, A100, 256, "fp32", "adam").step_seconds / 2
    )
    assert (
        predict_gpu(gemm, V100, 256, "tf32", "adam").step_seconds
        == predict_gpu(gemm, V100, 256, "fp32", "adam").step_seconds
    )


def test_bandwidth_bound_work_scales_with_bandwidth_and_the_optimizer_with_parameters():
    elementwise = [Layer("relu", 0, 0.0, 1e7, kernels=10, op="elementwise")]
    slow = predict_gpu(elementwise, GpuSpec("x", 16, 500, 10, {}, "ampere"), 256, "fp32", "sgd")
    fast = predict_gpu(elementwise, GpuSpec("y", 16, 1000, 10, {}, "ampere"), 256, "fp32", "sgd")
    assert (
        fast.memory_seconds < slow.memory_seconds
        and fast.compute_seconds == slow.compute_seconds == 0
    )
    small = predict_gpu(conv_net(1_000_000), A100, 64, "fp16", "adam").optimizer_seconds
    large = predict_gpu(conv_net(100_000_000), A100, 64, "fp16", "adam").optimizer_seconds
    assert large > 10 * small  # bandwidth-bound; a per-kernel ramp is the floor
    assert predict_gpu(
        conv_net(), A100, 64, "fp16", "adam", accumulation=8
    ).optimizer_seconds == pytest.approx(
        predict_gpu(conv_net(), A100, 64, "fp16", "adam").optimizer_seconds / 8
    )


def test_interval_is_per_generation_and_calibration_narrows_it():
    measured = predict_gpu(conv_net(), A100, 64, "fp16", "sgd")
    ada = predict_gpu(
        conv_net(),
        GpuSpec("L4", 24, 300, 30, {"tf32": 60, "bf16": 121, "fp16": 121}, "ada"),
        64,
        "fp16",
        "sgd",
    )
    assert "widened" in word(ada.note) and measured.note is None
    assert ada.high / ada.step_seconds > measured.high / measured.step_seconds
    calibrated = predict_gpu(conv_net(), A100, 64, "fp16", "sgd", calibration=1.5)
    assert calibrated.step_seconds == pytest.approx(1.5 * measured.step_seconds)
    assert (calibrated.low, calibrated.high) == pytest.approx(
        (0.8 * calibrated.step_seconds, 1.2 * calibrated.step_seconds)
    )


def test_merging_identical_rows_changes_no_prediction():
    from planner.workload.footprint import merge_identical

    layers = conv_net() * 24
    merged = merge_identical(layers)
    assert len(merged) == 4
    for precision in ("fp32", "fp16"):
        assert predict_gpu(merged, A100, 32, precision, "adam").step_seconds == pytest.approx(
            predict_gpu(layers, A100, 32, precision, "adam").step_seconds
        )


LOCAL = CpuFacts("this", 2.6, 512, 2, bf16=False)


def test_cpu_instance_speed_follows_its_processor():
    work = 1e12  # compute-heavy step: the vector units matter
    same = predict_cpu(1.0, 2, 8, work, local=LOCAL, target=LOCAL).step_seconds
    assert same == pytest.approx(predict_cpu(1.0, 2, 8, work).step_seconds)
    faster_clock = predict_cpu(
        1.0, 2, 8, work, local=LOCAL, target=CpuFacts("x", 3.9, 512, 2)
    ).step_seconds
    assert faster_clock < same
    amx = CpuFacts("spr", 2.6, 512, 2, bf16=True, amx=True)
    assert (
        predict_cpu(1.0, 2, 8, work, local=LOCAL, target=amx, precision="bf16").step_seconds
        < same / 2
    )
    assert predict_cpu(
        1.0, 2, 8, work, local=LOCAL, target=amx, precision="tf32"
    ).step_seconds == pytest.approx(same)
    no_bf16 = predict_cpu(
        1.0, 2, 8, work, local=LOCAL, target=CpuFacts("old", 2.6, 256, 2), precision="bf16"
    )
    assert "no bf16" in word(no_bf16.note)
    tiny = predict_cpu(1.0, 2, 8, 1e3, local=LOCAL, target=CpuFacts("x", 5.2, 128, 2)).step_seconds
    assert tiny == pytest.approx(
        0.5, rel=0.01
    )  # serial work scales with the clock, not the vectors


# ----------------------------------------------------------------------- what to benchmark


def option(target, device, seconds, price, rel=0.3, name="", fits=True, predicted=True):
    if seconds is None:
        return Option(
            target, device, "predicted", price, "ec2", name, fits=fits, note=(Worded("no figures"),)
        )
    return Option(
        target,
        device,
        "predicted" if predicted else "measured",
        price,
        "ec2",
        name,
        seconds / 1000,
        seconds,
        seconds * (1 - rel),
        seconds * (1 + rel),
        fits,
    )


def test_benchmark_selection_rule():
    options = [
        option("aws:c-small", "cpu", 10_000, 0.2),
        option("aws:c-big", "cpu", 9_000, 1.6),  # barely faster, 8x the price
        option(
            "aws:g-straddle", "cuda", 2_200, 1.0, name="T4"
        ),  # speedup 4.5x vs break-even 4.8x: its interval straddles it
        option("aws:g-straddle-big", "cuda", 2_200, 2.0, name="T4 (1 of 4)"),  # same GPU, pricier
        option("aws:g-loser", "cuda", 5_000, 3.0, name="V100"),  # 2x (1.5-2.9x) vs break-even 15x
        option("aws:g-unknown", "cuda", None, 1.0, name="A10G"),
        option("aws:g-huge", "cuda", 100, 50.0, name="H100", fits=False),
    ]
    plan = decide(options)
    listed = select_benchmarks(plan, {o.target: 0.1 for o in options}, budget=2.0, max_instances=8)
    choices = {c.target: c for c in listed}
    assert len(choices) == len(listed)  # one choice per instance, its first reason
    chosen = {t for t, c in choices.items() if c.benchmark}
    assert chosen == {"aws:c-small", "aws:g-straddle", "aws:g-unknown"}
    assert "reference" in choice_reason(choices["aws:c-small"])
    # the rent answer calls it too close against the CPU (its speedup straddles break-even): measuring settles it
    assert "too close to call between aws:c-small and aws:g-straddle" in choice_reason(
        choices["aws:g-straddle"]
    )
    assert "same GPU (T4)" in choice_reason(choices["aws:g-straddle-big"])
    assert "too slow for its price" in choice_reason(choices["aws:g-loser"])
    assert "does not fit" in choice_reason(choices["aws:g-huge"])
    assert "no better than aws:c-small" in choice_reason(choices["aws:c-big"])


def test_benchmark_selection_respects_budget_and_instance_cap():
    options = [
        option("aws:c", "cpu", 10_000, 0.2),
        option("aws:g1", "cuda", None, 1.0, name="A10G"),
        option("aws:g2", "cuda", None, 1.0, name="L4"),
    ]
    plan = decide(options)
    capped = select_benchmarks(
        plan, {"aws:c": 0.1, "aws:g1": 0.5, "aws:g2": 0.5}, budget=10, max_instances=2
    )
    assert [c.target for c in capped if c.benchmark] == ["aws:c", "aws:g1"]
    assert any("--max-instances 2" in choice_reason(c) for c in capped if not c.benchmark)
    poor = select_benchmarks(
        plan, {"aws:c": 0.1, "aws:g1": 0.5, "aws:g2": 0.5}, budget=0.3, max_instances=8
    )
    assert [c.target for c in poor if c.benchmark] == ["aws:c"]
    assert all("over --bench-budget" in choice_reason(c) for c in poor if not c.benchmark)


# ------------------------------------------------------------------- power-limited clocks (issue 24)


def test_a_power_limited_board_sustains_less_than_its_boost_clock():
    from planner.core.predict.gpu import sustained_clock_fraction
    from pricing.catalog import gpu_specs_by_name

    gpus = gpu_specs_by_name()
    l4, t4, a100 = gpus["L4"], gpus["T4"], gpus["A100"]
    assert sustained_clock_fraction(a100) == 1.0  # 400 W holds the boost clock
    assert 0.3 < sustained_clock_fraction(l4) < 0.8 and 0.3 < sustained_clock_fraction(t4) < 0.9
    assert (
        sustained_clock_fraction(l4) >= l4.base_clock_mhz / l4.boost_clock_mhz
    )  # never below the base clock
    assert (
        sustained_clock_fraction(GpuSpec("x", 16, 300, 10, {})) == 1.0
    )  # facts missing: the sheet
    # more power, a higher clock: the same board at twice its limit runs faster
    from dataclasses import replace

    assert sustained_clock_fraction(replace(l4, tdp_watts=144)) > sustained_clock_fraction(l4)


def test_forward_and_backward_alone_leaves_the_update_out():
    full = predict_gpu(conv_net(), A100, 64, "fp32", "adam")
    passes = predict_gpu(conv_net(), A100, 64, "fp32", "adam", update=False)
    assert passes.optimizer_seconds == 0 and passes.step_seconds == pytest.approx(
        full.step_seconds - full.optimizer_seconds
    )


def test_a_gpu_no_published_figure_backs_says_so_and_widens():
    from pricing.catalog import gpu_specs_by_name

    gpus = gpu_specs_by_name()
    t4 = predict_gpu(conv_net(), gpus["T4"], 64, "fp16", "adam")
    l4 = predict_gpu(conv_net(), gpus["L4"], 64, "fp32", "adam")
    l40s = predict_gpu(conv_net(), gpus["L40S"], 64, "fp32", "adam")
    assert "no published fp16 training figure backs T4" in word(t4.note)
    assert l4.note is None  # the L4's fp32 is backed by published measurements
    assert "no published fp32 training figure backs L40S" in word(l40s.note)
    assert l40s.high / l40s.low > l4.high / l4.low  # the same Ada band, widened
    assert l4.high / l4.low <= 2.0  # fp32 on Ampere and later: no wider than the evidence warrants


def test_every_catalog_gpu_has_its_power_facts_and_their_source():
    import csv

    from tests.conftest import ROOT

    for row in csv.DictReader((ROOT / "pricing" / "data" / "gpu_specs.csv").open()):
        assert (
            row["tdp_watts"]
            and row["sm_count"]
            and row["boost_clock_mhz"]
            and "http" in row["power_source"]
        ), row["gpu_name"]
    for row in csv.DictReader((ROOT / "pricing" / "data" / "gpu_parts.csv").open()):
        assert row["published_names"] and "http" in row["source"], row["part"]


def test_what_the_rent_answer_calls_too_close_to_call_is_benchmarked_as_it_says():
    options = [
        option("aws:c-a", "cpu", 10_000, 0.200),
        option("aws:c-b", "cpu", 9_900, 0.204),
    ]  # 1% apart
    plan = decide(options)
    close = plan.answers["rent"].comparison
    assert (
        close is not None
        and close.verdict == "too_close"
        and set(close.settle) == {"aws:c-a", "aws:c-b"}
    )
    chosen = [
        c
        for c in select_benchmarks(
            plan, {o.target: 0.1 for o in options}, budget=2.0, max_instances=8
        )
        if c.benchmark
    ]
    assert {c.target for c in chosen} == set(
        close.settle
    )  # the footer and the Targets pane name what the answer does
    assert any("too close to call" in choice_reason(c) for c in chosen)
