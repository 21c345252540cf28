"""The data-parallel model's properties (planner/core/predict/fabric.py, parallel.py), with plain numbers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.core.predict import GpuSpec, predict_gpu
from planner.core.predict.fabric import (
    AMPERE_BUS_CAP,
    PCIE_X16_BYTES,
    Fabric,
    Interconnect,
    allreduce_seconds,
    fabric_for,
    interconnect_from_row,
)
from planner.core.predict.parallel import (
    BUCKET_CAP_BYTES,
    FIRST_BUCKET_BYTES,
    bucket_sizes,
    overlap,
    predict_data_parallel,
    scaling_note,
)
from planner.report.remarks import word
from planner.workload.footprint import Layer, footprint
from planner.workload.spec import load_spec
from tests.conftest import EXAMPLES

A100 = GpuSpec("A100", 40, 1555, 19.5, {"tf32": 156, "bf16": 312, "fp16": 312}, "ampere")
NVSWITCH = Interconnect("p4d.24xlarge", 8, "nvswitch", {0: 600.0}, None, 400.0, True)
PCIE = Interconnect("g5.12xlarge", 4, "pcie", {}, 4, 40.0, None)
MESH = Interconnect("p3.16xlarge", 8, "nvlink", {2: 100.0, 4: 200.0, 8: 300.0}, None, 25.0, False)

_bytes = st.floats(min_value=0, max_value=1e10)
_ranks = st.integers(1, 64)
_bw = st.floats(min_value=1e8, max_value=1e12)


@settings(max_examples=200, deadline=None)
@given(_bytes, _bytes, _ranks, _bw)
def test_more_bytes_never_take_less_time(a, b, ranks, bw):
    lo, hi = sorted((a, b))
    f = Fabric(ranks, bw, "pcie", 5e-6)
    assert allreduce_seconds(hi, f) >= allreduce_seconds(lo, f) >= 0.0


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1, max_value=1e10), st.integers(2, 64), _bw, _bw)
def test_more_bandwidth_is_never_slower(nbytes, ranks, bw1, bw2):
    lo, hi = sorted((bw1, bw2))
    assert allreduce_seconds(nbytes, Fabric(ranks, hi, "nvswitch")) <= allreduce_seconds(
        nbytes, Fabric(ranks, lo, "nvswitch")
    )


def test_ring_sends_2_n_minus_1_over_n_of_the_buffer():
    f = Fabric(8, 100e9, "nvswitch", hop_latency=0.0, base_latency=0.0)
    assert allreduce_seconds(1e9, f) == pytest.approx(2 * 7 / 8 * 1e9 / 100e9)
    assert allreduce_seconds(1e9, Fabric(1, 1e9, "pcie")) == 0.0  # one rank: nothing to reduce
    # latency: 2(N-1) steps of the hop latency on top of the base
    assert allreduce_seconds(1.0, Fabric(4, 1e30, "pcie", 5e-6, 8e-6)) == pytest.approx(
        8e-6 + 6 * 5e-6
    )


def test_fabric_bandwidths_follow_nccls_model():
    assert (
        fabric_for(PCIE, "ampere", 4).bus_bytes_per_second
        == PCIE_X16_BYTES[4]
        == pytest.approx(24e9)
    )
    assert PCIE_X16_BYTES[3] == pytest.approx(12e9)
    assert (
        fabric_for(NVSWITCH, "ampere", 8).bus_bytes_per_second == AMPERE_BUS_CAP
    )  # 12 links x 20 GB/s, capped
    assert fabric_for(NVSWITCH, "hopper", 2).bus_bytes_per_second == pytest.approx(12 * 20.6e9)
    # a hybrid cube mesh: two GPUs share at most two links, all eight use six
    assert fabric_for(MESH, "volta", 2).bus_bytes_per_second == pytest.approx(2 * 20e9)
    assert fabric_for(MESH, "volta", 8).bus_bytes_per_second == pytest.approx(6 * 20e9)


def test_across_instances_the_network_bounds_the_ring():
    two = fabric_for(NVSWITCH, "ampere", 8, instances=2)
    assert two.ranks == 16 and two.instances == 2
    assert two.bus_bytes_per_second == pytest.approx(400 / 8 * 1e9 * 0.96)
    unsourced = Interconnect("g6.12xlarge", 4, "pcie", {}, 4, None, None)
    assert "not sourced" in word(fabric_for(unsourced, "ada", 4, instances=2))
    # crossing instances costs more than staying inside one
    assert allreduce_seconds(100e6, two) > allreduce_seconds(
        100e6, fabric_for(NVSWITCH, "ampere", 8)
    )


def test_interconnect_rows_parse():
    row = {
        "instance_type": "p3.8xlarge",
        "gpus": 4,
        "interconnect": "nvlink",
        "nvlink_gbps_per_gpu": "2:100 4:200",
        "pcie_gen": float("nan"),
        "network_gbps": 10.0,
        "efa": 0.0,
    }
    link = interconnect_from_row(row)
    assert (
        link.nvlink_gbps == {2: 100.0, 4: 200.0} and link.network_gbps == 10.0 and link.efa is False
    )
    assert link.nvlink_for(3) == 200.0 and link.nvlink_for(8) is None
    switch = interconnect_from_row(
        {**row, "interconnect": "nvswitch", "nvlink_gbps_per_gpu": "600", "efa": ""}
    )
    assert switch.nvlink_for(8) == 600.0 and switch.efa is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=200e6), min_size=1, max_size=60))
def test_buckets_hold_every_gradient_and_respect_the_caps(grads):
    buckets = bucket_sizes(grads)
    assert sum(b for _i, b in buckets) == pytest.approx(sum(grads))
    limits = [FIRST_BUCKET_BYTES] + [BUCKET_CAP_BYTES] * len(buckets)
    for (index, size), limit in zip(buckets[:-1], limits):
        assert size >= limit  # a bucket closes once it reaches its cap
        assert size - grads[index] < limit  # ... and not before the tensor that crossed it
    assert [i for i, _b in buckets] == sorted(i for i, _b in buckets)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(min_value=0, max_value=0.05), st.floats(min_value=0, max_value=60e6)),
        min_size=1,
        max_size=40,
    ),
    _bw,
)
def test_exposed_all_reduce_is_between_the_last_bucket_and_all_of_it(pieces, bw):
    f = Fabric(4, bw, "pcie", 5e-6)
    o = overlap(pieces, f)
    buckets = bucket_sizes([b for _s, b in pieces])
    backward = sum(s for s, _b in pieces)
    floor = 0.0
    if buckets:  # the last bucket cannot start before its last gradient is ready
        index, nbytes = buckets[-1]
        floor = max(
            0.0, sum(s for s, _b in pieces[: index + 1]) + allreduce_seconds(nbytes, f) - backward
        )
    assert floor - 1e-12 <= o.exposed_seconds <= o.allreduce_seconds + 1e-12
    no_backward = overlap([(0.0, b) for _s, b in pieces], f)
    assert no_backward.exposed_seconds == pytest.approx(
        no_backward.allreduce_seconds
    )  # nothing to hide behind


def _mlp(width: int, depth: int) -> list[Layer]:
    return [
        Layer(f"l{i}", width * width, 2.0 * width * width, float(width), op="gemm")
        for i in range(depth)
    ]


def _convnet(depth: int) -> list[Layer]:  # many FLOPs per parameter: a 3x3 conv on a 56x56 map
    return [
        Layer(f"c{i}", 9 * 64 * 64, 2.0 * 9 * 64 * 64 * 56 * 56, 64.0 * 56 * 56, op="conv")
        for i in range(depth)
    ]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8192), st.sampled_from([2, 4, 8]), st.floats(min_value=1e9, max_value=1e12))
def test_n_gpus_are_never_more_than_n_times_faster(batch, gpus, bw):
    batch *= gpus
    p = predict_data_parallel(
        _mlp(512, 4), A100, batch, gpus, Fabric(gpus, bw, "pcie", 5e-6), "fp32", "adam"
    )
    assert p.step_seconds >= p.per_gpu.step_seconds
    assert 0 < p.scaling_efficiency <= 1.0 + 1e-9
    assert p.low <= p.step_seconds <= p.high


def test_one_gpu_is_the_device_model():
    layers = _convnet(4)
    one = predict_data_parallel(layers, A100, 64, 1, None, "fp16", "sgd")
    assert one.step_seconds == predict_gpu(layers, A100, 64, "fp16", "sgd").step_seconds
    assert one.scaling_efficiency == pytest.approx(1.0)


def test_parameter_heavy_models_scale_worse_and_suffer_more_on_pcie():
    nvs, pcie = fabric_for(NVSWITCH, "ampere", 4), fabric_for(PCIE, "ampere", 4)

    def eff(layers, fabric):
        return predict_data_parallel(
            layers, A100, 1024, 4, fabric, "fp16", "adam"
        ).scaling_efficiency

    dense, conv = _mlp(4096, 8), _convnet(8)
    assert eff(conv, nvs) > eff(dense, nvs)
    assert eff(dense, pcie) < eff(dense, nvs)
    assert eff(conv, pcie) <= eff(conv, nvs)


def test_the_examples_mlp_scales_poorly_everywhere_and_the_note_says_why():
    spec = load_spec(EXAMPLES / "surface-mlp.yaml")
    layers = list(footprint(spec).layers)
    for link, gen in ((NVSWITCH, "ampere"), (PCIE, "ampere")):
        p = predict_data_parallel(
            layers, A100, spec.batch_size, 4, fabric_for(link, gen, 4), "fp32", "adam"
        )
        assert p.scaling_efficiency < 0.5
        note = word(scaling_note(p))
        assert "scales poorly" in note and "dispatch-bound" in note


def test_stragglers_follow_the_order_statistics_of_the_slowest_rank():
    from planner.core.predict.parallel import expected_max_normal, straggler_seconds

    assert expected_max_normal(1) == 0.0
    assert expected_max_normal(2) == pytest.approx(
        1 / 3.141592653589793**0.5, rel=1e-4
    )  # 1/sqrt(pi)
    assert [round(expected_max_normal(n), 3) for n in (4, 8)] == [1.029, 1.424]
    assert straggler_seconds(0.1, 0.0, 8) == 0.0 and straggler_seconds(
        0.1, 0.2, 2
    ) == pytest.approx(0.1 * 0.2 * 0.5642, rel=1e-3)
    layers = _mlp(512, 4)
    f = Fabric(4, 10e9, "pcie", 5e-6)
    steady = predict_data_parallel(layers, A100, 4096, 4, f, "fp32", "adam")
    noisy = predict_data_parallel(layers, A100, 4096, 4, f, "fp32", "adam", step_cv=0.3)
    assert noisy.step_seconds > steady.step_seconds
