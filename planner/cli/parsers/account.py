"""The arguments of `planner prices`, `tui`, `reap`, `infra`, `ls`, `config` and `completion` (handled in
planner/cli/account.py, config.py and completion.py)."""

from __future__ import annotations

import argparse
import re

from planner.cli.parsers.shared import (
    flag,
    output_arguments,
    ranged,
    region_argument,
    rows_arguments,
    script_length_arguments,
)
from planner.service.config import KEYS
from planner.service.flags import PRICE_SOURCES, PURCHASES

SHELLS = ("bash", "zsh", "fish")  # planner completion SHELL


class _OneGpuFilter(argparse.Action):
    """`planner prices`'s one GPU filter. Several words (`planner prices H100 A100`) are refused with the prices
    usage, naming them and the form (argparse would leave the second to the top parser: "unrecognized
    arguments" under `planner`'s usage)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        words = list(values or [])
        if len(words) > 1:
            parser.error(
                f"GPU[:COUNT]: one GPU filter, got {len(words)} words: {' '.join(words)}; join a "
                "filter's parts with ':' (planner prices H100:8, A100:80GB:8), one model a command "
                "(every GPU model: planner prices --gpu)"
            )
        setattr(namespace, self.dest, words[0] if words else None)


def add_prices_parser(sub) -> None:
    p = sub.add_parser(
        "prices",
        help="list AWS instances with on-demand and spot prices (bundled or live)",
        usage="planner prices [GPU[:COUNT]] [options]",
    )
    # -5GB, -2: a value below zero, refused by the GPU filter's rule naming it (argparse took any -5GB for an
    # unknown flag, reported by the top parser with its usage); the prices flags look like no number
    p._negative_number_matcher = re.compile(r"^-\.?\d")
    p.add_argument(
        "gpus",
        nargs="*",
        action=_OneGpuFilter,
        metavar="GPU[:COUNT]",
        help="the GPUs asked for, as `sky gpus list` and `dstack offer --gpu` read them: a model (A100: the "
        "40 and 80 GB parts), a count (H100:8, L4:1..4), memory per GPU in GB (24GB..80GB), in any order; "
        "every machine of them is listed",
    )
    region_argument(p, "one region (left out: every region, the cheapest of each row)")
    p.add_argument(
        "--all-regions",
        action="store_true",
        help="the cheapest of each row in every region, cheapest first (as `sky gpus list --all-regions`)",
    )
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--gpu", action="store_true", help="GPU instances only")
    kind.add_argument("--cpu", action="store_true", help="CPU-only instances")
    p.add_argument("--arch", type=flag("--arch"), help="x86_64 or arm64")
    p.add_argument(
        "--min-gpu-memory",
        type=flag("--min-gpu-memory"),
        metavar="GB",
        help=ranged(
            "--min-gpu-memory",
            "at least this much memory on each GPU, in GB as its vendor states it (an A10G has 24)",
        ),
    )
    p.add_argument(
        "--max-price",
        type=flag("--max-price"),
        metavar="USD",
        help=ranged("--max-price", "at most this many dollars per hour"),
    )
    p.add_argument(
        "--purchase",
        choices=PURCHASES,
        default="on-demand",
        help="price that --max-price and --sort use",
    )
    p.add_argument("--sort", choices=("price", "gpu-memory"), default="price")
    p.add_argument(
        "--refresh",
        action="store_true",
        help="read current prices first: by default every instance type and region from the hosted catalog "
        "(SkyPilot's public AWS catalog; PLANNER_CATALOG_URL: a mirror, a file path or file:// URL), "
        "no credentials; kept for 24 h",
    )
    p.add_argument(
        "--source",
        choices=PRICE_SOURCES,
        help="with --refresh: catalog (the hosted catalog, the default) or aws (AWS's Price List API and spot "
        "price history for the catalog's instance types; needs credentials)",
    )
    rows_arguments(p, plan=False)
    output_arguments(p, json_help='print {"source", "as_of", "note", "instances": [...]}')
    p.set_defaults(handler="account:cmd_prices")


def add_tui_parser(sub) -> None:
    p = sub.add_parser(
        "tui",
        help="plan interactively in the terminal",
        usage="planner tui [options] [SPEC | RUN_DIR | train.py [--total-steps N | --epochs N] [-- ARGS...]]",
    )
    p.add_argument(
        "spec",
        nargs="?",
        metavar="SPEC|RUN_DIR|train.py",
        help="a workload spec to open (estimated at once), a saved run's directory to show its plan, or your "
        "training script (measured here unchanged, then planned)",
    )
    script_length_arguments(p)
    p.add_argument(
        "--seconds",
        type=flag("--seconds"),
        help=ranged(
            "--seconds",
            "time budget of each measurement: the one on opening (default 5, a quick "
            "first answer) and each run's per target (default 10)",
        ),
    )
    region_argument(p, "AWS region for prices and targets")
    p.add_argument(
        "--purchase", choices=PURCHASES, help="price AWS options on-demand (the default) or spot"
    )
    p.add_argument(
        "--ami",
        type=flag("--ami"),
        help="AMI id for AWS targets (default: the PyTorch Deep Learning AMI)",
    )
    p.set_defaults(handler="account:cmd_tui")


def add_account_parsers(sub) -> None:
    p = sub.add_parser("reap", help="terminate planner-managed instances past planner:expires-at")
    region_argument(p)
    p.add_argument(
        "--run-id",
        type=flag("--run-id"),
        help="terminate every instance of this run (its run directory's name), expired or not",
    )
    p.add_argument("--dry-run", action="store_true", help="list what would be terminated")
    p.add_argument(
        "--at",
        type=flag("--at"),
        metavar="UTC_TIME",
        help="judge expiry as of this time instead of now (preview)",
    )
    p.set_defaults(handler="account:cmd_reap")

    p = sub.add_parser(
        "infra",
        help="the account stack: bucket, no-ingress security group, scheduled reaper, user policy",
    )
    p.add_argument(
        "action",
        choices=("deploy", "status", "delete", "template", "policy"),
        help="deploy/status/delete the stack; print the rendered template or the user policy",
    )
    region_argument(p)
    p.add_argument("--stack-name", type=flag("--stack-name"), default="cloud-planner")
    p.add_argument(
        "--vpc", type=flag("--vpc"), help="VPC for the security group (default: the default VPC)"
    )
    p.add_argument(
        "--schedule",
        type=flag("--schedule"),
        help='reaper schedule, e.g. "rate(10 minutes)" (the default)',
    )
    p.set_defaults(handler="account:cmd_infra")

    p = sub.add_parser("ls", help="list planner-managed instances with age, expiry and cost so far")
    region_argument(p)
    output_arguments(p)
    p.set_defaults(handler="account:cmd_ls")


def add_config_parser(sub) -> None:
    p = sub.add_parser(
        "config",
        help="defaults for region, purchase, time value, local price, bench budget, AWS profile",
        description="Defaults kept in a TOML file (`planner config path`; PLANNER_CONFIG points elsewhere). "
        "A flag wins over the file, the file over the environment (AWS_REGION, AWS_PROFILE). "
        "Keys: " + "; ".join(f"{k.name}: {k.help}" for k in KEYS.values()),
    )
    p.add_argument("action", choices=("show", "set", "unset", "path"), nargs="?", default="show")
    p.add_argument("key", nargs="?", choices=list(KEYS))
    p.add_argument("value", nargs="?")
    p.set_defaults(handler="config:cmd_config")


def add_completion_parser(sub) -> None:
    p = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description="Print a completion script for your shell: subcommands, flags, spec files, run "
        "directories, and the price catalog's regions and instance types. Install it once, "
        "e.g. `planner completion bash > ~/.local/share/bash-completion/completions/planner` "
        "(docs/guides/config.md: every shell).",
    )
    p.add_argument("shell", choices=SHELLS)
    p.set_defaults(handler="completion:cmd_completion")
