"""The arguments of `planner run`, `estimate`, `plan` and `calibrate` (handled in planner/cli/plan.py)."""

from __future__ import annotations

from planner.cli.parsers.shared import (
    chart_argument,
    flag,
    output_arguments,
    plan_arguments,
    ranged,
    region_argument,
    script_length_arguments,
    threads_argument,
)
from planner.service.flags import PURCHASES


def add_run_parser(sub) -> None:
    p = sub.add_parser(
        "run",
        help="measure targets, estimate the full training run, and recommend where to train",
        usage="planner run [options] SPEC | train.py --targets local [--total-steps N | --epochs N] [-- ARGS...]",
    )
    p.add_argument(
        "spec",
        help="workload spec (YAML or JSON), or your training script (train.py) or SkyPilot task (task.yaml): measured here, unchanged",
    )
    script_length_arguments(p)
    p.add_argument(
        "--targets",
        default="local",
        type=flag("--targets"),
        help="comma-separated: local (this machine's CPU, and its GPU when present), aws:INSTANCE_TYPE, "
        "auto (measure here, predict every instance, benchmark only those that could change the decision)",
    )
    plan_arguments(p, defaults=True)
    p.add_argument(
        "--seconds",
        type=flag("--seconds"),
        default=10.0,
        help=ranged("--seconds", "bench time budget per target (default 10)"),
    )
    threads_argument(p)
    aws = p.add_argument_group("AWS targets")
    region_argument(aws)
    aws.add_argument("--purchase", choices=PURCHASES, default="on-demand")
    aws.add_argument(
        "--fallback",
        choices=("on-demand", "next"),
        help="on-demand (with --purchase spot): a spot launch no zone has capacity (or price) for, or a spot "
        "bench reclaimed before it measured enough steps, is launched on-demand; next: a launch no "
        "zone has capacity for launches the plan's next-best instance of its kind (GPU or CPU) "
        "instead. The --bench-budget check counts the fallback's worst case",
    )
    aws.add_argument(
        "--requirements",
        metavar="FILE",
        help="a training script's requirements.txt (in its folder), pip-installed on each instance at boot",
    )
    aws.add_argument(
        "--processes",
        type=flag("--processes"),
        default=1,
        help=ranged(
            "--processes",
            "data-parallel processes on each AWS instance: its bench runs under "
            "torchrun with DistributedDataParallel (NCCL, at most one per GPU); local targets "
            "measure one (default 1)",
        ),
    )
    aws.add_argument(
        "--ami",
        type=flag("--ami"),
        help="AMI id (default: the PyTorch Deep Learning AMI from its public SSM parameter)",
    )
    aws.add_argument(
        "--ami-type",
        type=flag("--ami-type"),
        help="DLAMI type in /aws/service/deeplearning/ami/ARCH/TYPE/latest/ami-id",
    )
    aws.add_argument("--subnet", type=flag("--subnet"), help="subnet id (default: the default VPC)")
    aws.add_argument(
        "--bucket",
        type=flag("--bucket"),
        help="results bucket (default: the infra stack's, else one the planner creates)",
    )
    aws.add_argument(
        "--bench-budget",
        type=flag("--bench-budget"),
        metavar="USD",
        help=ranged(
            "--bench-budget",
            "refuse to launch when the worst-case bench cost exceeds this (default 2.00)",
        ),
    )
    aws.add_argument(
        "--max-bench-minutes",
        type=flag("--max-bench-minutes"),
        metavar="N",
        help=ranged(
            "--max-bench-minutes",
            "dead-man deadline of each instance; the planner stops waiting then (default 20)",
        ),
    )
    aws.add_argument(
        "--max-instances",
        type=flag("--max-instances"),
        metavar="N",
        help=ranged("--max-instances", "at most N instances at once (default 8)"),
    )
    aws.add_argument(
        "--poll-seconds",
        type=flag("--poll-seconds"),
        default=5.0,
        help=ranged("--poll-seconds", "how often to ask AWS for progress (default 5)"),
    )
    aws.add_argument(
        "--dry-run",
        action="store_true",
        help="show the instances it would launch, where, the guards and the worst-case cost; launch nothing",
    )
    aws.add_argument(
        "-y",
        "--yes",
        action="store_true",
        help='launch without asking "Proceed? [y/N]" on a terminal',
    )
    p.add_argument(
        "--out",
        metavar="RUN_DIR",
        help="run journal directory (default planner-runs/<UTC time>-<name>/)",
    )
    output_arguments(p, json_help='print {"workload", "options", "recommendation", ...}')
    p.set_defaults(handler="run:cmd_run")


def add_estimate_parser(sub) -> None:
    p = sub.add_parser(
        "estimate",
        help="measure here, predict every catalog instance, say which ones a paid benchmark would settle",
        description="Measure a spec's step here, or run your own training script unchanged "
        "(`planner estimate train.py --epochs 10 -- --lr 0.1`: everything after -- goes to the "
        "script), and predict every instance in the region from it.",
        usage="planner estimate [options] SPEC | train.py [--total-steps N | --epochs N] [-- ARGS...]",
    )
    p.add_argument(
        "spec",
        help="workload spec (YAML or JSON), your training script (train.py) run unchanged, or a SkyPilot task (task.yaml) that runs one",
    )
    script_length_arguments(p)
    region_argument(p, many=True)
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--gpu", action="store_true", help="GPU instances only")
    kind.add_argument("--cpu", action="store_true", help="CPU instances only")
    p.add_argument("--purchase", choices=PURCHASES, default="on-demand")
    plan_arguments(p, defaults=True)
    p.add_argument(
        "--seconds",
        type=flag("--seconds"),
        default=5.0,
        help=ranged("--seconds", "local bench time budget (default 5)"),
    )
    threads_argument(p)
    p.add_argument(
        "--predict-only",
        action="store_true",
        help="measure nothing here: predict every instance from the work alone (GPUs from their specs; a GPU "
        "script from its trace on the stand-in GPU, nothing of it run here)",
    )
    chart_argument(p)
    output_arguments(p)
    p.set_defaults(handler="plan:cmd_estimate")


def add_calibrate_parser(sub) -> None:
    p = sub.add_parser(
        "calibrate",
        help="correct the device model with the measurements in run directories",
        description="Compare each rented instance a run measured (and a local CUDA GPU) with the device "
        "model's prediction for it, and save the ratio as a correction per GPU model or CPU family: later "
        "predictions of that device are multiplied by the median of its corrections. A run of a spec with "
        "aws: targets (planner run SPEC --targets local,aws:TYPE) has such measurements; a run on this "
        "machine alone has none.",
    )
    p.add_argument(
        "run_dirs", nargs="+", metavar="RUN_DIR", help="directories written by `planner run`"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="show the corrections without saving them"
    )
    p.set_defaults(handler="plan:cmd_calibrate")


def add_plan_parser(sub) -> None:
    p = sub.add_parser(
        "plan",
        help="recompute a run directory's plan without running anything, and save it as its plan.json",
        description="Recompute a run directory's plan without running anything, and save it as its plan.json. A "
        "what-if of another length than the run's own (--total-steps, --epochs) is shown, not saved.",
    )
    p.add_argument("run_dir", help="a directory written by `planner run`")
    plan_arguments(p, defaults=False)
    region_argument(p, "price AWS options in this region", many=True)
    p.add_argument("--purchase", choices=PURCHASES, help="price AWS options on-demand or spot")
    p.add_argument(
        "--measured-only",
        action="store_true",
        help="plan the run's measured rows alone (default: every other instance predicted, as estimate does)",
    )
    p.add_argument(
        "--total-steps",
        type=flag("--total-steps"),
        metavar="N",
        help=ranged(
            "--total-steps",
            "a script's run: plan its whole run as N optimizer steps, from the "
            "measurement journaled (a run measured without a length keeps this one)",
        ),
    )
    p.add_argument(
        "--epochs",
        type=flag("--epochs"),
        metavar="N",
        help=ranged(
            "--epochs",
            "a script's run: plan it as N DataLoader epochs (counted in steps from one epoch seen)",
        ),
    )
    chart_argument(p)
    output_arguments(p)
    p.set_defaults(handler="plan:cmd_plan")
