"""The arguments of `planner check`, `bench` and `validate` (handled in planner/cli/measure.py)."""

from __future__ import annotations

from planner.cli.parsers.shared import (
    env_arguments,
    flag,
    output_arguments,
    ranged,
    script_length_arguments,
    threads_argument,
    workdir_argument,
)


def add_parsers(sub) -> None:
    p = sub.add_parser(
        "check",
        help="validate a workload spec (print parameters, FLOPs and training memory), or check that a "
        "training script parses and list what of its folder would ship",
    )
    p.add_argument(
        "spec",
        help="workload spec (YAML or JSON), training script (train.py) or SkyPilot task (task.yaml)",
    )
    env_arguments(p)
    output_arguments(p)
    p.set_defaults(handler="measure:cmd_check")

    p = sub.add_parser(
        "bench",
        help="measure the steady-state training step on this machine (a spec, or your own train.py)",
        description="Measure a spec's training step here, or run your own training script unchanged and "
        "time its steps: `planner bench train.py --epochs 10 -- --lr 0.1` (everything after -- "
        "goes to the script). For a script only --seconds, --total-steps, --epochs, --workdir, --env, --secret and the output flags (--json, --format, --out-file) apply.",
        usage="planner bench [options] SPEC | train.py [--total-steps N | --epochs N] [--workdir DIR] [-- ARGS...]",
    )
    p.add_argument(
        "spec",
        help="workload spec (YAML or JSON), your training script (train.py) run unchanged, or a SkyPilot task (task.yaml) that runs one",
    )
    script_length_arguments(p)
    p.add_argument(
        "--device",
        choices=("cpu", "cuda", "auto"),
        default="auto",
        help="where to train (auto: CUDA when present, else CPU)",
    )
    p.add_argument(
        "--seconds",
        type=flag("--seconds"),
        default=10.0,
        help=ranged("--seconds", "time budget of the measurement (default 10)"),
    )
    p.add_argument(
        "--sweep",
        action="store_true",
        help="also measure throughput at 1/4x to 16x the batch size (advice)",
    )
    threads_argument(p)
    p.add_argument(
        "--processes",
        type=flag("--processes"),
        default=1,
        help=ranged(
            "--processes",
            "data-parallel processes under torchrun (DistributedDataParallel: gloo "
            "on CPU, NCCL with one GPU each on CUDA); the batch is split evenly (default 1)",
        ),
    )
    output_arguments(p)
    p.add_argument("--out", metavar="FILE", help="also write the full result JSON to FILE")
    p.set_defaults(handler="measure:cmd_bench")


def add_validate_parser(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="really train for N epochs and compare with the prediction",
        usage="planner validate [options] SPEC | train.py [--total-steps N | --epochs N] [--workdir DIR] [-- ARGS...]",
    )
    p.add_argument(
        "spec",
        help="workload spec (YAML or JSON), or your training script (train.py) or SkyPilot task (task.yaml): estimated, then run whole",
    )
    p.add_argument(
        "--total-steps",
        type=flag("--total-steps"),
        metavar="N",
        help=ranged("--total-steps", "a script's whole run, in optimizer steps"),
    )
    workdir_argument(p)
    p.add_argument(
        "--target",
        choices=("local",),
        default="local",
        help="where to train: this machine (the only choice)",
    )
    p.add_argument(
        "--device",
        choices=("cpu", "cuda", "auto"),
        default="auto",
        help="a spec's device here (default auto: CUDA when this machine has it); a script picks its own",
    )
    p.add_argument(
        "--epochs",
        type=flag("--epochs"),
        help=ranged("--epochs", "epochs to train (default: the spec's)"),
    )
    p.add_argument(
        "--seconds",
        type=flag("--seconds"),
        default=10.0,
        help=ranged("--seconds", "bench time budget for the prediction (default 10)"),
    )
    p.add_argument(
        "--no-recheck",
        dest="recheck",
        action="store_false",
        help="skip the second bench (for a script: its second measurement) after the run that tells whether the "
        "machine held its speed",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler="measure:cmd_validate")
