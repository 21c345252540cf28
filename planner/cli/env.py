"""A script's environment from the command line: `--env NAME=VALUE` and `--secret NAME` read as `sky launch` reads
them, said by name (a secret's value never), refused when a secret's value is in the script's arguments."""

from __future__ import annotations

import argparse
import os

from planner.cli.common import note
from planner.errors import InputError
from planner.report.remarks import words
from planner.service import ENV_NAME, ScriptEnv


def env_pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    """`--env NAME=VALUE` / `--env NAME` (its value from this environment, as sky launch takes it), in order: the
    last one given for a name wins. InputError naming the flag and the value."""
    pairs: dict[str, str] = {}
    for value in values or []:
        name, eq, given = value.partition("=")
        if not ENV_NAME.match(name):
            raise InputError(
                f"{flag} {value}: {name or 'the name'} is not an environment variable's name",
                hint=f"{flag} NAME=VALUE, NAME of letters, digits and _ (not starting with a digit)",
            )
        if not eq and name not in os.environ:
            raise InputError(
                f"{flag} {name}: not set in your environment, to take its value from",
                hint=f"give its value: {flag} {name}=VALUE, or export {name} first",
            )
        pairs[name] = given if eq else os.environ[name]
    return pairs


def settle_script_env(args: argparse.Namespace) -> None:
    """`args.script_env` (a ScriptEnv) from --env and --secret (a task's envs and secrets are read with them:
    take_task); a script's command says them by name (say_env), a spec's refuses them."""
    if not hasattr(args, "env") or hasattr(args, "script_env"):
        return
    try:
        args.script_env = ScriptEnv.of(
            env_pairs(args.env, "--env"), env_pairs(args.secret, "--secret")
        )
    except InputError as exc:
        # said once the workload takes an environment (say_env): a spec refuses the flag itself first
        args.script_env, args.env_refused = None, exc


def env_taken(args: argparse.Namespace) -> None:
    """The --env or --secret settle_script_env could not read (a name unset here), raised now that the workload
    takes them."""
    refused = getattr(args, "env_refused", None)
    if refused is not None:
        raise refused


def say_env(args: argparse.Namespace) -> None:
    """Refuse a secret's value in the script's arguments (a shell's `-- --token $HF_TOKEN`); say the env by name."""
    env_taken(args)
    if getattr(args, "script_env", None) is None:
        return
    leaked = args.script_env.leaked_in(getattr(args, "script_args", None) or [])
    if leaked is not None:
        raise InputError(
            f"arguments after --: one holds the value of the secret {leaked}, which the planner would print, "
            "journal and send to instances",
            hint=f"read it in the script from the environment "
            f'(os.environ["{leaked}"]): the planner sets it there, here only',
        )
    for line in words(args.script_env.said()):
        note(line)
        args.task_said = [*(getattr(args, "task_said", None) or []), line]
