"""A user's script planned on every instance from one traced step (planner/core/predict/trace.py and
planner/core/script/instances.py's script_candidates): the GPU rows from the traced ops, the host's Python and
the syncs; the CPU rows scaled from the measured step; the decision the numbers make."""

from __future__ import annotations

import pytest

from planner.core.decide import decide
from planner.core.predict.trace import SYNC_SECONDS, host_seconds, predict_trace_gpu
from planner.core.script import (
    Epoch,
    Moved,
    OpClassWork,
    ScriptEstimate,
    ScriptLength,
    ScriptRun,
    StepTrace,
    args_for_length,
    estimate_or_per_steps,
    estimate_script,
    length_disagreement,
    own_epochs,
    script_candidates,
)
from planner.report.remarks import note_text, word, words
from planner.service.predictions import hardware
from pricing.catalog import gpu_specs_by_name, instances, load_catalog


def timeline(durations: list[float], start: float = 1.0) -> ScriptRun:
    """A measured run whose steps took `durations`, the first ending `start` s after the spawn plus its own."""
    ends, t = [], start
    for d in durations:
        t += d
        ends.append(t)
    return ScriptRun("ok", "budget", "optimizer", ends)


def _estimate(step: float, total_steps: int) -> ScriptEstimate:
    return ScriptEstimate(
        setup_seconds=2.0,
        step_seconds=step,
        step_low=step * 0.97,
        step_high=step * 1.03,
        steps_measured=100,
        warmup_steps=2,
        steps_per_epoch=None,
        between_epochs_seconds=None,
        total_steps=total_steps,
        epochs=0.0,
        seconds=0.0,
        low=0.0,
        high=0.0,
    )


# An RL agent: one episode per optimizer step, ~40 batch-1 forwards between Python physics, each action read
# back with .item(); ~900 tiny kernels; 65% of the step in Python (as examples/scripts/reinforce.py here).
AGENT = StepTrace(
    start=1.0,
    wall=0.05,
    op_seconds=0.004,
    op_overhead_seconds=3e-6,
    views=200,
    classes={
        "gemm": OpClassWork(160, 2_000_000, 400_000, 0.001),
        "elementwise": OpClassWork(700, 200_000, 900_000, 0.003),
    },
    flops_by_dtype={"float32": 2_200_000},
    to_device=Moved(41, 41 * 16),
    to_host=Moved(40, 40 * 8),
)
# A convnet: 85 kernels over 150 G FLOPs a step (3 s here), a batch sent to the device, the loss read back once.
CONVNET = StepTrace(
    start=1.0,
    wall=3.0,
    op_seconds=2.98,
    op_overhead_seconds=3e-6,
    views=10,
    classes={
        "conv": OpClassWork(12, 150_000_000_000, 1_200_000_000, 2.7),
        "gemm": OpClassWork(3, 200_000_000, 1_000_000, 0.01),
        "elementwise": OpClassWork(70, 0, 3_000_000_000, 0.2),
    },
    flops_by_dtype={"float32": 150_200_000_000},
    to_device=Moved(2, 256 * 3 * 64 * 64 * 4 + 256 * 8),
    to_host=Moved(1, 4),
)


def test_the_hosts_python_is_the_step_less_its_ops_and_their_eager_overhead():
    assert host_seconds(AGENT, 0.03) == pytest.approx(0.03 - 0.004 - (860 + 200) * 3e-6)
    assert host_seconds(CONVNET, 2.5) == 0.0  # never negative: the untraced step ran its ops faster


def test_values_read_back_serialise_the_host_and_the_gpu_and_cost_a_sync_each():
    gpu = gpu_specs_by_name()["A10G"]
    read = predict_trace_gpu(AGENT, 0.03, (0.05, 0.05), gpu)
    free = predict_trace_gpu(
        StepTrace(**{**AGENT.__dict__, "to_host": Moved()}), 0.03, (0.05, 0.05), gpu
    )
    assert read.step_seconds is not None and free.step_seconds is not None
    # without a read-back the host's Python overlaps the GPU; with 40 it cannot, and each costs a sync
    assert read.step_seconds - free.step_seconds >= 40 * SYNC_SECONDS * (1 - 1e-9)
    assert (
        read.low is not None and read.high is not None and read.low < read.step_seconds < read.high
    )


def test_a_faster_host_cpu_shortens_a_python_bound_step_and_not_a_kernel_bound_one():
    gpu = gpu_specs_by_name()["A10G"]
    slow, fast = (
        predict_trace_gpu(AGENT, 0.03, (0.05, 0.05), gpu, r).step_seconds for r in (1.0, 2.0)
    )
    assert slow is not None and fast is not None and fast < 0.7 * slow
    unread = StepTrace(
        **{**CONVNET.__dict__, "to_host": Moved()}
    )  # nothing read back: the host runs ahead of the GPU
    slow, fast = (
        predict_trace_gpu(unread, 3.0, (0.05, 0.05), gpu, r).step_seconds for r in (1.0, 2.0)
    )
    assert slow is not None and fast is not None and fast == pytest.approx(slow, rel=1e-9)


def test_precision_is_the_dtype_most_flops_ran_in():
    assert CONVNET.precision == "fp32"
    assert StepTrace(0, 1, 0, {}, flops_by_dtype={"bfloat16": 10, "float32": 3}).precision == "bf16"
    assert StepTrace(0, 1, 0, {}).precision == "fp32"


def _plan(trace: StepTrace, step: float, total_steps: int):
    run = ScriptRun(
        "ok",
        "budget",
        "optimizer",
        [1.0 + i * step for i in range(60)],
        optimizers=1,
        threads=2,
        trace=trace,
    )
    facts = instances(load_catalog().frame, region="us-east-1")
    candidates = script_candidates(
        run, _estimate(step, total_steps), facts, "on-demand", hardware()
    )
    return decide([c.option(total_steps) for c in candidates], "cheapest", None, None), candidates


def test_an_agent_stepping_a_python_environment_is_planned_on_a_cpu():
    plan, candidates = _plan(AGENT, 0.03, 20_000)
    gpus = [c for c in candidates if c.device == "cuda" and c.step is not None]
    assert gpus and all(
        c.step is not None and c.step.step_seconds > 0.5 * 0.03 for c in gpus
    )  # no GPU speeds it up much
    assert plan.recommendation.device == "cpu" and plan.answers["rent"].device == "cpu"


def test_a_convnet_over_a_large_dataset_is_planned_on_a_gpu():
    plan, candidates = _plan(CONVNET, 3.0, 20_000)  # ~17 h here
    gpus = [c for c in candidates if c.device == "cuda" and c.step is not None]
    assert all(c.step is not None and c.step.step_seconds < 3.0 / 10 for c in gpus)
    assert plan.answers["rent"].device == "cuda"


def test_without_a_trace_gpu_rows_say_why_they_are_not_predicted():
    _, candidates = _plan(None, 0.03, 1000)  # type: ignore[arg-type]
    gpus = [c for c in candidates if c.device == "cuda"]
    assert gpus and all(
        c.step is None and "no step of the script was traced" in note_text(c.note) for c in gpus
    )
    assert any(
        c.device == "cpu" and c.source == "predicted" and c.step is not None for c in candidates
    )


def test_the_warm_up_steps_beyond_a_steady_step_are_one_time_work_not_dropped():
    from planner.core.script import estimate_script

    # the first step ends 2 s after the spawn, then 4 warm-up steps of 0.3 s, then 95 steps of 0.1 s
    est = estimate_script(timeline([2.0] + [0.3] * 4 + [0.1] * 95, start=0.0), total_steps=1000)
    assert est.warmup_steps == 10 and est.step_seconds == pytest.approx(0.1)
    assert est.setup_seconds == pytest.approx(
        2.0 - 0.1 + 4 * 0.2
    )  # the first step's end less a step, + the excess
    assert est.seconds == pytest.approx(est.setup_seconds + 0.3 + 1000 * 0.1)


def test_a_dataloaders_collate_is_host_work_on_a_gpu_not_a_kernel():
    from dataclasses import replace

    gpu = gpu_specs_by_name()["T4"]
    collate = OpClassWork(
        400, 0, 400 * 4_000_000, 0.2
    )  # 400 stacks of 1 MB each, 0.2 s of this CPU
    as_kernels = replace(
        CONVNET,
        classes={
            **CONVNET.classes,
            "elementwise": OpClassWork(470, 0, 3_000_000_000 + collate.bytes, 0.4),
        },
        op_seconds=CONVNET.op_seconds + 0.2,
    )
    as_host = replace(
        CONVNET, classes={**CONVNET.classes, "data": collate}, op_seconds=CONVNET.op_seconds + 0.2
    )
    assert as_host.kernels == CONVNET.kernels and as_host.bytes == CONVNET.bytes
    assert host_seconds(as_host, 3.2) == pytest.approx(
        3.2 - 2.98 - (85 + 10) * 3e-6
    )  # the collate stays on the host
    on_gpu = predict_trace_gpu(as_host, 3.2, (0.02, 0.02), gpu)
    assert on_gpu.kernels == 85 and on_gpu.launch_seconds == pytest.approx(
        host_seconds(as_host, 3.2) + 85 * 3e-6, rel=0.5
    )
    assert (
        predict_trace_gpu(as_kernels, 3.2, (0.02, 0.02), gpu).kernels == 485
    )  # had it been counted as the GPU's


def test_two_measurements_of_a_script_are_compared_window_by_window_not_by_its_own_variation():
    from planner.core.script import paired_windows
    from planner.service.script_checks import window_spread_percent

    episodes = [
        0.01 * (1 + i / 20) for i in range(400)
    ]  # an agent's episodes grow 20x as it learns
    first, slower = timeline(episodes), timeline([d * 1.1 for d in episodes])
    assert window_spread_percent(paired_windows(first, slower)) == pytest.approx(
        0.0, abs=1e-6
    )  # the workload's own
    assert all(r == pytest.approx(1.1) for r in paired_windows(first, slower))
    bursty = timeline(
        [d * (1.5 if 100 <= i < 200 else 1.0) for i, d in enumerate(episodes)]
    )  # a neighbour's burst
    assert window_spread_percent(paired_windows(first, bursty)) > 15


def test_steps_whose_level_moves_get_the_interval_of_their_windows_not_of_iid_steps():
    import random

    from planner.core.script import estimate_script

    rng = random.Random(0)
    iid = [0.02 * (1 + 0.2 * (rng.random() - 0.5)) for _ in range(1000)]
    levels = [
        0.02 * (0.6 + 0.8 * (i // 100 % 2)) * (1 + 0.2 * (rng.random() - 0.5)) for i in range(1000)
    ]  # episodes
    flat, moving = (
        estimate_script(timeline(iid), total_steps=5000),
        estimate_script(timeline(levels), total_steps=5000),
    )
    assert flat.step_high / flat.step_seconds - 1 < 0.01  # i.i.d.: the mean's own 95% interval
    assert (
        moving.step_high / moving.step_seconds - 1 > 0.3
    )  # two levels, 0.012 and 0.028 s: either may follow


def test_a_script_that_needs_more_than_a_gpus_memory_does_not_fit_it():
    from dataclasses import replace

    from planner.core.script import script_said

    # 10 GiB of weights and optimizer state, 6 GiB of activations saved for backward: more than a T4's 16 GiB
    big = replace(CONVNET, state_bytes=10 * 2**30, saved_bytes=6 * 2**30)
    est = _estimate(3.0, 1000)
    run = ScriptRun("ok", "budget", "optimizer", [1.0 + 3 * i for i in range(50)], trace=big)
    _plan_of_big, candidates = _plan(big, 3.0, 1000)
    rows = {c.instance_type: c for c in candidates}
    assert not rows["g4dn.xlarge"].fits and "needs ~16.0 GiB" in note_text(rows["g4dn.xlarge"].note)
    assert rows["p4de.24xlarge"].fits and "1 of its 8 GPUs used" in note_text(
        rows["p4de.24xlarge"].note
    )
    assert any(
        "~16.0 GiB a GPU would hold" in n for n in words(script_said(run, est).notes)
    )  # how the rows were made
    assert any(
        "not checked" in w for w in words(script_said(replace(run, trace=CONVNET), est).warnings)
    )  # a caveat


def test_a_traced_step_keeps_its_work_when_steps_are_alike_and_scales_it_when_they_differ():
    """The traced step ran slower than the mean (tracing's cost the per-op correction missed): a convnet's steps
    do alike work, so the mean step has the traced step's FLOPs and kernels; an RL agent's episodes differ, so a
    traced episode longer than the mean one is scaled down to it."""
    from dataclasses import replace

    from planner.core.script import mean_trace, steps_alike

    slow = replace(
        CONVNET, wall=4.0, start=0.0
    )  # 3 s steps: the traced one took 4 s under the trace
    alike = replace(timeline([3.0, 3.1, 2.9, 3.0] * 8, start=1.0), trace=slow)
    assert steps_alike(alike)
    t = mean_trace(alike, _estimate(3.0, 100))
    assert (
        t is not None
        and t.kernels == CONVNET.kernels
        and t.flops == CONVNET.flops
        and t.wall == 3.0
    )
    episodes = replace(
        timeline([0.01, 0.03, 0.05, 0.02, 0.04, 0.06] * 6, start=1.0),
        trace=replace(AGENT, start=0.0, wall=0.07),
    )
    assert not steps_alike(episodes)
    t = mean_trace(episodes, _estimate(0.035, 100))
    assert (
        t is not None and t.kernels < AGENT.kernels * 0.6 and t.flops < AGENT.flops * 0.6
    )  # a ~0.035 s episode's


def test_the_scripts_own_epochs_are_read_from_its_arguments_as_argparse_would_take_them():
    assert own_epochs(["--epochs", "20", "--lr", "0.1"]) == ("--epochs", 20)
    assert own_epochs(["--num_epochs=8"]) == ("--num_epochs", 8)
    assert own_epochs(["--epochs", "3", "--epochs", "5"]) == ("--epochs", 5)  # the last one given
    assert (
        own_epochs(["--steps", "100"]) is None and own_epochs(["--epochs"]) is None
    )  # not an epoch; no value
    assert own_epochs(["--epochs", "2.5"]) is None


def test_the_run_again_for_another_length_sets_the_scripts_own_flag_only_where_it_named_the_runs_length():
    """`planner plan RUN --total-steps 50000` suggests `planner run ... -- --max_iters 50000`, not the journaled
    `--max_iters 5000` (a trial: the suggested run measured the old length and planned a what-if again)."""
    own, new = ScriptLength(5000), ScriptLength(50000)
    assert args_for_length(["--max_iters", "5000", "--lr", "1"], own, new) == [
        "--max_iters",
        "50000",
        "--lr",
        "1",
    ]
    assert args_for_length(["--steps=5000"], own, new) == ["--steps=50000"]
    # a flag that named another count counts something else (environment steps, micro-batches): left as it is
    assert args_for_length(["--steps", "200"], own, new) == ["--steps", "200"]
    assert args_for_length(["--max_iters", "5000"], ScriptLength(None), new) == [
        "--max_iters",
        "5000",
    ]
    assert args_for_length(["--epochs", "3"], ScriptLength(None, 3), ScriptLength(None, 9)) == [
        "--epochs",
        "9",
    ]
    assert args_for_length(["--epochs", "3"], ScriptLength(None, 3), new) == ["--epochs", "3"]


def test_a_plan_of_another_length_than_the_scripts_own_arguments_is_warned():
    # 10 steps an epoch seen twice (an evaluation pass at each end), stopped at its budget
    run = timeline([0.1] * 40)
    run = ScriptRun(
        "ok",
        "budget",
        "optimizer",
        run.steps,
        epochs=[
            Epoch(run.steps[0] - 0.05, run.steps[9] + 0.01, 10),
            Epoch(run.steps[9] + 0.01, run.steps[19] + 0.01, 10),
        ],
    )
    asked = estimate_script(run, epochs=5)
    assert asked.steps_per_epoch == 10 and asked.total_steps == 50
    warned = length_disagreement(["--epochs", "20"], run, asked)
    assert warned and "5 epochs (50 steps)" in word(warned) and "--epochs 20" in word(warned)
    assert length_disagreement(["--epochs", "5"], run, asked) is None  # they agree
    assert (
        length_disagreement(["--epochs", "5"], run, estimate_script(run, total_steps=50)) is None
    )  # in steps too
    assert length_disagreement(["--lr", "0.1"], run, asked) is None  # the script names no epochs
    finished = ScriptRun("ok", "finished", "optimizer", run.steps, epochs=run.epochs)
    assert (
        length_disagreement(["--epochs", "20"], finished, estimate_script(finished, epochs=5))
        is None
    )  # said already
    per_steps = estimate_or_per_steps(run, None, None, ["--epochs", "20"])
    assert per_steps.per_steps and length_disagreement(["--epochs", "20"], run, per_steps) is None
    # no length given: the plan asks for it; '100 epochs (1,000 steps) ... say --epochs 20' was no run's


def test_the_plan_of_a_script_warns_a_length_its_arguments_do_not_train_and_a_what_if_asked_of_a_run_does_not():
    from planner.core.document import PlanOptions
    from planner.core.script import ScriptJob
    from planner.service import PlannerService

    steps = timeline([0.1] * 40).steps
    run = ScriptRun(
        "ok",
        "budget",
        "optimizer",
        steps,
        epochs=[
            Epoch(steps[0] - 0.05, steps[9] + 0.01, 10),
            Epoch(steps[9] + 0.01, steps[19] + 0.01, 10),
        ],
    )
    job = ScriptJob("train.py", "/work/train.py", ["--epochs", "20"], None, 5)
    est = estimate_script(run, epochs=5)
    doc = PlannerService()._scripts.script_plan(job, run, est, PlanOptions(), measured_only=True)
    assert any("the script's own arguments say --epochs 20" in w for w in words(doc.plan.warnings))
    asked = PlannerService()._scripts.script_plan(
        job, run, est, PlanOptions(), measured_only=True, what_if=True
    )
    assert not any("own arguments say" in w for w in words(asked.plan.warnings))


def test_a_tasks_own_pick_is_priced_against_the_answer_and_shown_and_kept_in_its_json():
    from planner.core.document import PlanOptions
    from planner.core.document_json import from_json, to_json
    from planner.core.script import ScriptJob
    from planner.core.shown import shown_options
    from planner.core.task import TaskOrigin
    from planner.core.task_resources import task_asks
    from planner.report.answers import plan_answers
    from planner.service import PlannerService

    run = ScriptRun(
        "ok",
        "budget",
        "optimizer",
        [1.0 + i * 0.03 for i in range(60)],
        optimizers=1,
        threads=2,
        trace=AGENT,
    )
    est = estimate_script(run, total_steps=20_000)
    asks = task_asks({"accelerators": "L4:1"}, "task.yaml")
    job = ScriptJob(
        "reinforce.py",
        "/work/reinforce.py",
        [],
        20_000,
        None,
        5,
        task=TaskOrigin("task.yaml", asks),
    )
    doc = PlannerService()._scripts.script_plan(job, run, est, PlanOptions())
    chosen = doc.task_option
    assert doc.task_choice is not None and "aws:g6.xlarge" in doc.task_choice.targets
    assert chosen is not None and chosen.device == "cuda" and "L4" in (chosen.device_name or "")
    assert all(
        o.target not in doc.task_choice.targets or o.rank >= chosen.rank
        for o in doc.plan.options
        if o.usable
    )
    rent = doc.plan.option_of(doc.plan.answers["rent"])
    assert (
        rent is not None and rent.device == "cpu"
    )  # the agent: a CPU, and the task's L4 priced against it
    line = dict(plan_answers(doc))["task"]
    assert (
        "task.yaml asks for accelerators: L4:1" in line
        and f"{chosen.cost_usd / rent.cost_usd:.2f}x the cost" in line
    )
    assert chosen.key in {
        o.key for o in shown_options(doc)[0]
    }  # its row is in the table, whatever the grouping
    data = to_json(doc)
    assert data["task_choice"]["target"] == chosen.target
    assert from_json(data).task_choice == doc.task_choice

    def asking(accelerators: str):
        task = TaskOrigin("task.yaml", task_asks({"accelerators": accelerators}, "task.yaml"))
        again = job.__class__(**{**job.__dict__, "task": task})
        return PlannerService()._scripts.script_plan(again, run, est, PlanOptions())

    none = asking("H100:3")
    line = dict(plan_answers(none))["task"]
    # SkyPilot matches the count exactly: the counts AWS has are named (a trial read the table's H100 rows as it)
    assert none.task_option is None and "no instance in us-east-1 has that count" in line
    assert "H100:1 (aws:p5.4xlarge)" in line and "H100:8 (aws:p5.48xlarge)" in line
    assert from_json(to_json(none)).task_choice == none.task_choice
    # a script trains on one GPU of eight: said on the task's line, not only in the row's note
    eight = dict(plan_answers(asking("A100:8")))["task"]
    assert "aws:p4d.24xlarge (A100; the script trains on 1 of its 8 GPUs, all 8 priced)" in eight


def test_an_unknown_length_suggests_the_scripts_own_epochs_and_never_assumes_them():
    from planner.core.script import RunLengthUnknown

    steps = timeline([0.1] * 40).steps
    run = ScriptRun(
        "ok",
        "budget",
        "optimizer",
        steps,
        loaders_started=1,
        epochs=[
            Epoch(steps[0] - 0.05, steps[9] + 0.01, 10),
            Epoch(steps[9] + 0.01, steps[19] + 0.01, 10),
        ],
    )
    with pytest.raises(RunLengthUnknown) as exc:
        estimate_script(run, args=["--lr", "0.1", "--epochs=30"])
    assert "its own arguments say --epochs 30: --epochs 30 if that is the whole run" in (
        exc.value.hint or ""
    )
    with pytest.raises(RunLengthUnknown) as exc:
        estimate_script(run, args=["--lr", "0.1"])
    assert "own arguments" not in (exc.value.hint or "")


def test_on_a_busy_machine_steps_a_dataloader_fed_are_alike_by_their_work_whatever_their_times():
    from planner.core.script import LoaderUnderWay, steps_alike

    spread = [0.1, 0.3] * 30  # middle half 3x apart: unlike by their times
    steps = timeline(spread).steps
    busy = [
        "the machine was busy while the script was measured: other processes used 1.0 of its 2 CPUs"
    ]
    loader = [LoaderUnderWay(steps[0] - 0.05, 60, 128)]
    assert steps_alike(
        ScriptRun(
            "ok",
            "budget",
            "optimizer",
            steps,
            loaders_started=1,
            under_way=loader,
            busy_warnings=busy,
        )
    )
    assert not steps_alike(
        ScriptRun("ok", "budget", "optimizer", steps, loaders_started=1, under_way=loader)
    )  # quiet: times tell
    assert not steps_alike(
        ScriptRun("ok", "budget", "optimizer", steps, busy_warnings=busy)
    )  # an agent: no loader feeds it
    assert steps_alike(timeline([0.1, 0.11] * 30))


def test_a_scripts_steps_are_named_by_what_they_were_found_by():
    """No torch.optim optimizer: its steps are its backward passes, and the title says so (it said optimizer steps
    while --explain said backward passes)."""
    from planner.core.document import ScriptSummary
    from planner.report.title import steps_word

    def summary(boundary: str) -> ScriptSummary:
        return ScriptSummary(
            "train.py", "script", None, None, None, None, None, 3000, "fp32", None, [], boundary
        )

    assert steps_word(summary("backward")) == "training steps (backward passes)"
    assert steps_word(summary("optimizer")) == "optimizer steps"


def test_validate_runs_the_script_whole_with_the_threads_its_estimate_was_measured_with():
    """A trial: measured with 1 torch thread on a busy machine (the launcher fits them to the CPUs free), run whole
    with 2 once the CPUs freed, and validate blamed the estimate (-54%). The whole run takes the measured threads; a
    run whose threads the user set (nothing fitted) keeps the user's environment."""
    from dataclasses import replace

    from planner.service.measure import same_threads

    run = replace(
        ScriptRun("ok", "budget", "optimizer", [1.0, 1.1]),
        threads=1,
        threads_fitted={"threads": 1, "free_cpus": 0.9, "cpus": 2},
    )
    assert same_threads(run, {"A": "b"}) == {"A": "b", "OMP_NUM_THREADS": "1"}
    assert same_threads(replace(run, threads_fitted=None), {"A": "b"}) == {"A": "b"}


def test_a_run_measured_whole_in_one_epoch_is_not_warned_of_time_between_epochs():
    """A trial: `planner run convnet.py -- --epochs 1` finished while measured, one DataLoader epoch, and was warned
    that the time between epochs was left out: nothing was, the run was measured whole."""
    from planner.core.remarks import NoEpochBoundary

    steps = [1.0 + 0.05 * i for i in range(1, 60)]
    one_epoch = [Epoch(0.9, steps[-1], len(steps))]
    finished = ScriptRun(
        "ok", "finished", "optimizer", steps, epochs=one_epoch, loaders_started=1, wall=steps[-1]
    )
    assert not any(isinstance(w, NoEpochBoundary) for w in estimate_script(finished).warnings)
    # planned for a longer run than the one measured: the time between its epochs is not known
    longer = estimate_script(finished, total_steps=600)
    assert any(isinstance(w, NoEpochBoundary) for w in longer.warnings)
    # stopped by the budget: not known either
    cut = ScriptRun("ok", "budget", "optimizer", steps, epochs=one_epoch, loaders_started=1)
    assert any(
        isinstance(w, NoEpochBoundary) for w in estimate_script(cut, total_steps=600).warnings
    )


def test_a_deadline_without_a_length_offers_the_scripts_own_steps_or_epochs_flag():
    """A trial: `--deadline 1h -- --max_iters 300` was refused with '--total-steps N' beside the script's own count."""
    from planner.errors import InputError
    from planner.service.script_checks import refuse_deadline_without_length
    from planner.service.workload import ScriptWorkload

    def hint(*args: str) -> str:
        with pytest.raises(InputError) as refused:
            refuse_deadline_without_length(ScriptWorkload("gpt.py", args), 3600.0)
        return refused.value.hint or ""

    assert hint("--max_iters", "300").startswith(
        "give --total-steps 300 with --deadline, before -- (the script's own --max_iters 300, if it counts "
        "optimizer steps); otherwise --total-steps N"
    )
    assert hint("--num_epochs=4").startswith(
        "give --epochs 4 with --deadline, before -- (the script's own --num_epochs 4)"
    )
    assert hint("--episodes", "5000").startswith("give --total-steps N")
    refuse_deadline_without_length(ScriptWorkload("gpt.py", ("--max_iters", "300"), 300), 3600.0)
