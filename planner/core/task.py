"""Pure: a SkyPilot task YAML read as the training script it runs. Design notes:
docs/reference/modules.md (planner/core/task.py)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from planner.core.remarks import Remark, TaskPartUnused
from planner.core.task_resources import TaskAsks, show_value, task_asks
from planner.errors import InputError

PYTHON = re.compile(r"^python(3(\.\d+)?)?$")
LAUNCHERS = ("torchrun", "accelerate", "deepspeed", "mpirun", "horovodrun")
SEPARATORS = (";", "&&", "||", "&")  # between two commands of a line
OPERATOR_CHARS = set("();<>|&")  # a pipe or a redirection after the python command: not run
PIP = re.compile(
    r"(?:^|\s)(?:python3?\s+-m\s+)?(?:uv\s+)?pip3?\s+install\s+(?:[^\n]*?\s)?-r\s+(\S+)"
)
VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class TaskOrigin:
    """Where a script run came from when a SkyPilot task named it: the task file as named and what its resources ask
    for (journaled with the run: a replan prices the task's choice again; no envs or secrets in it)."""

    source: str
    asks: TaskAsks | None = None


@dataclass(frozen=True)
class Task:
    """A SkyPilot task as the planner runs it: the script (relative to the workdir) and its arguments, the
    workdir as written (SkyPilot's rule: relative to where the command is run), the requirements file its setup
    installs, and what of the task is not used (one line each)."""

    source: str
    workdir: str
    script: str
    args: list[str]
    requirements: str | None = None
    name: str | None = None
    notes: list[Remark] = field(default_factory=list)
    # set in the script's environment, as SkyPilot sets them
    envs: dict[str, str] = field(default_factory=dict)
    # set here only (planner.core.script.ScriptEnv)
    secrets: dict[str, str] = field(default_factory=dict)
    asks: TaskAsks | None = None  # what its resources ask for; None: no resources

    @property
    def origin(self) -> TaskOrigin:
        return TaskOrigin(self.source, self.asks)


def is_task(data: Any) -> bool:
    """A SkyPilot task (a `run` command), not a workload spec (a `model`)."""
    return isinstance(data, dict) and "run" in data and "model" not in data


def _text(data: dict[str, Any], key: str, source: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(
            f"{source}: {key}: must be text ({'a folder' if key == 'workdir' else 'shell commands'}), got "
            f"{type(value).__name__}"
            + (
                " (a git workdir is not supported: give the folder checked out)"
                if key == "workdir" and isinstance(value, dict)
                else ""
            ),
            hint=f"write {key} as SkyPilot does, e.g. `{key}: .`"
            if key == "workdir"
            else f"write {key} as a block: `{key}: |` then one command per line",
        )
    return value


def _lines(script: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", script)
    return [
        line.strip()
        for line in joined.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def _expand(line: str, envs: dict[str, str]) -> str:
    """`$VAR` and `${VAR}` from the task's envs; one they do not set is left as written (read_task refuses it in the
    command it plans, and only there)."""
    return VAR.sub(lambda m: envs.get(m.group(1) or m.group(2), m.group(0)), line)


def _commands(line: str, envs: dict[str, str], source: str) -> list[list[str]]:
    """The commands of one line as the shell splits them (`a && b; c`), each a list of words, with the task's envs
    put in (a variable they do not set is left as written: refused later only in the command planned)."""
    lexer = shlex.shlex(_expand(line, envs), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:  # an unclosed quote
        raise InputError(
            f"{source}: run: `{line}`: {exc}", hint="close the quote, as the shell would need"
        ) from None
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def _python_command(tokens: list[str], line: str, source: str) -> tuple[str, list[str], str]:
    """(script, its arguments, what of the line is not run) of `python [-u] SCRIPT.py ARGS [| tee log]`."""
    # | > < ...
    cut = next((i for i, t in enumerate(tokens) if set(t) <= OPERATOR_CHARS), len(tokens))
    if 1 < cut < len(tokens) and tokens[cut - 1].isdigit() and tokens[cut][0] in "<>":
        cut -= 1  # `2>&1`: the descriptor is the redirection's, not an argument
    rest, tokens = " ".join(tokens[cut:]), tokens[:cut]
    i = 1
    while i < len(tokens) and tokens[i].startswith("-"):
        if tokens[i] == "-m":
            raise InputError(
                f"{source}: run: `{line}` runs a module (python -m), not a script file",
                hint="plan the script itself: planner estimate path/to/train.py -- ARGS",
            )
        i += 2 if tokens[i] in ("-W", "-X") else 1  # an interpreter flag and its value
    if i >= len(tokens) or not tokens[i].endswith(".py"):
        raise InputError(
            f"{source}: run: `{line}` names no script file (.py) after python",
            hint="the task's run should hold `python train.py ARGS`",
        )
    return tokens[i], tokens[i + 1 :], rest


def read_task(
    data: dict[str, Any],
    source: str,
    overrides: dict[str, str] | None = None,
    secret_overrides: dict[str, str] | None = None,
) -> Task:
    """The task as the planner runs it (see the module docstring); `overrides`, `secret_overrides`: `--env
    NAME=VALUE`, `--secret NAME=VALUE`, which set or replace an env or a secret, as `sky launch` takes them (and give
    a value to one the task leaves empty). InputError naming the field."""
    workdir = _text(data, "workdir", source)
    run = _text(data, "run", source)
    if not run or not run.strip():
        raise InputError(
            f"{source}: run: is empty: nothing to plan",
            hint="give the task's training command: `run: python train.py ARGS`",
        )
    if workdir is None:
        raise InputError(
            f"{source}: workdir: not set, so nothing would ship with the script",
            hint="add `workdir: .` (the folder that holds the script, as `sky launch` syncs it)",
        )
    envs = _named_values(data, "envs", overrides, source)
    secrets = _named_values(data, "secrets", secret_overrides, source)
    both = sorted(set(envs) & set(secrets))
    if both:
        raise InputError(
            f"{source}: {', '.join(both)}: in both envs and secrets",
            hint="keep each name in one of them",
        )
    # never put into a command: shown, journaled, uploaded
    hidden = set(secrets) | set(secret_env(envs))
    plain = {k: v for k, v in envs.items() if k not in hidden}
    script, args, notes = _training_command(run, plain, hidden, source)
    requirements, setup_notes = _requirements(_text(data, "setup", source) or "", plain, source)
    asks = task_asks(data.get("resources"), source)
    name = data.get("name")
    return Task(
        source,
        workdir,
        script,
        list(args),
        requirements,
        str(name) if name is not None else None,
        notes + setup_notes + _unused(data, asks, source),
        envs,
        secrets,
        asks,
    )


def _training_command(
    run: str, plain: dict[str, str], hidden: set[str], source: str
) -> tuple[str, list[str], list[Remark]]:
    """The one `python SCRIPT.py ARGS` of the task's run: (script, its arguments, what of run is not run)."""
    found: list[tuple[str, list[str], str, str]] = []  # (script, args, rest, command)
    not_run: list[str] = []
    for line in _lines(run):
        for command in _commands(line, plain, source):
            shown = " ".join(command)
            _refuse_launcher(command, shown, source)
            if PYTHON.match(command[0]):
                _refuse_unset(command, hidden, source)
                found.append((*_python_command(command, shown, source), shown))
            elif command[0] == "cd" and not found:
                raise InputError(
                    f"{source}: run: `{shown}` changes the folder the script runs in",
                    hint=f"point workdir at that folder (`workdir: {command[1] if len(command) > 1 else '~'}`) "
                    "and the python command at the script in it",
                )
            else:
                not_run.append(f"`{shown}`")
    if not found:
        raise InputError(
            f"{source}: run: no `python SCRIPT.py ARGS` command to plan",
            hint="the planner runs the task's training script; plan it directly: planner estimate train.py -- ARGS",
        )
    if len(found) > 1:
        raise InputError(
            f"{source}: run: {len(found)} python commands ({'; '.join(f'`{f[3]}`' for f in found)}): the "
            "planner plans one training script",
            hint="plan each script apart: planner estimate SCRIPT.py -- ARGS",
        )
    script, args, rest, _ = found[0]
    if rest:
        not_run.append(f"`{rest}` after the python command")
    notes: list[Remark] = [TaskPartUnused(source, "run", tuple(not_run))] if not_run else []
    return script, args, notes


def _refuse_launcher(command: list[str], shown: str, source: str) -> None:
    """InputError for a command that starts several processes (torchrun, accelerate, python -m torch.distributed)."""
    if command[0] in LAUNCHERS or (
        PYTHON.match(command[0])
        and "-m" in command[1:3]
        and any(t in LAUNCHERS or t.startswith("torch.distributed") for t in command[1:4])
    ):
        named = next((t for t in command if t.endswith(".py")), "train.py")
        raise InputError(
            f"{source}: run: `{shown}` starts several processes ({command[0]}): the planner "
            "measures one training process",
            hint=f"plan the script as one process: planner estimate {named} -- ARGS",
        )


def _refuse_unset(command: list[str], hidden: set[str], source: str) -> None:
    """InputError for a python command that names a variable the task does not set, or a secret."""
    unset = next((m.group(1) or m.group(2) for t in command for m in VAR.finditer(t)), None)
    # a secret is never put in: it would be journaled, uploaded
    if unset is not None and unset in hidden:
        raise InputError(
            f"{source}: run: the python command puts the secret ${unset} on the script's "
            "command line, which the planner journals and sends to instances",
            hint=f'read it in the script from the environment (os.environ["{unset}"]): the '
            "planner sets it there, here only",
        )
    if unset is not None:
        raise InputError(
            f"{source}: run: ${unset} is not set by the task's envs"
            + (" (SkyPilot sets it on the cluster)" if unset.startswith("SKYPILOT_") else ""),
            hint=f"write its value (for one node) in the command, or add it to envs "
            f"(`envs: {{{unset}: ...}}`)",
        )


def _requirements(
    setup: str, plain: dict[str, str], source: str
) -> tuple[str | None, list[Remark]]:
    """The requirements file of the setup's first `pip install -r`, and what else of setup is not run."""
    requirements = None
    skipped: list[str] = []
    for line in _lines(setup):
        pip = PIP.search(_expand(line, plain))
        if pip and requirements is None:
            requirements = pip.group(1)
        else:
            skipped.append(f"`{line}`")
    return requirements, [TaskPartUnused(source, "setup", tuple(skipped))] if skipped else []


def _unused(data: dict[str, Any], asks: TaskAsks | None, source: str) -> list[Remark]:
    """What of the task's resources, num_nodes and file_mounts the planner does not use (InputError: a bad
    num_nodes)."""
    notes: list[Remark] = []
    if asks is not None and asks.chooses:
        notes.append(TaskPartUnused(source, "resources", (asks.written,)))
    if asks is not None and asks.cloud not in (None, "aws"):
        notes.append(TaskPartUnused(source, "cloud", (str(asks.cloud),)))
    nodes = data.get("num_nodes")
    if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1):
        raise InputError(
            f"{source}: num_nodes: must be a whole number of nodes, got {nodes!r}",
            hint="write `num_nodes: 1` (the planner plans one node), or leave it out",
        )
    if (nodes or 1) != 1:
        notes.append(TaskPartUnused(source, "num_nodes", (str(data["num_nodes"]),)))
    if data.get("file_mounts"):
        notes.append(TaskPartUnused(source, "file_mounts"))
    return notes


NO_VALUE = {  # (what is said, the fix) of an env or a secret left without a value, as SkyPilot asks for it
    "envs": (
        "(SkyPilot asks for it with --env)",
        "give it with --env {0}=VALUE, or a value in the task's envs (`{0}: 10`)",
    ),
    "secrets": ("", "give it with --secret {0} (from your environment) or --secret {0}=VALUE"),
}


def _named_values(
    data: dict[str, Any], key: str, overrides: dict[str, str] | None, source: str
) -> dict[str, str]:
    """A task's `envs` or `secrets` with `--env`/`--secret` over them, as text. InputError for a value that is not a
    mapping, a name no environment variable can have, or a name left without a value (`sky launch` asks for it)."""
    given = data.get(key) or {}
    if not isinstance(given, dict):
        raise InputError(
            f"{source}: {key}: must be a mapping of names to values",
            hint="e.g. `envs: {EPOCHS: 10}`"
            if key == "envs"
            else "e.g. `secrets: {HF_TOKEN: null}`",
        )
    given = {**given, **(overrides or {})}
    bad = next((str(k) for k in given if not ENV_NAME.match(str(k))), None)
    if bad is not None:
        raise InputError(
            f"{source}: envs/secrets: {bad} is not an environment variable's name",
            hint="a name of letters, digits and _, not starting with a digit",
        )
    needed = [str(k) for k, v in given.items() if v is None]
    if needed:
        said, fix = NO_VALUE[key]
        raise InputError(
            f"{source}: {key}: {', '.join(needed)} has no value" + (f" {said}" if said else ""),
            hint=fix.format(needed[0]),
        )
    odd = next((str(k) for k, v in given.items() if isinstance(v, (list, dict, set))), None)
    if odd is not None:
        raise InputError(
            f"{source}: {key}: {odd}: a value must be text or a number, got {type(given[odd]).__name__} "
            f"{show_value(given[odd])}",
            hint=f'write it as the shell gets it, quoted: `{odd}: "..."`',
        )
    return {str(k): _env_value(v) for k, v in given.items()}


def _env_value(value: Any) -> str:
    """An env's value as the shell gets it: YAML's true/false as SkyPilot writes them, numbers as written."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


SECRET = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^AWS_|^AZURE_|^GOOGLE_", re.I
)


def secret_env(names: Any) -> list[str]:
    """The env names that look like a secret (an API key, a token, a password, a cloud's credentials): set in the
    script's environment here, never written to the journal or sent to an instance."""
    return [n for n in names if SECRET.search(n)]
