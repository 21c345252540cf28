"""`planner completion bash|zsh|fish` (issue 27): each shell's script is printed, is valid syntax for
its shell, and names every subcommand and the catalog's regions and instance types. bash and fish are
also asked to complete real command lines (an `aws:TYPE` target after its colon, a region, spec
files); zsh is checked to load as a completion function. A shell this machine lacks skips only the
checks that need it."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from planner.cli import build_parser
from planner.service import PlannerService
from tests.cli.helpers import planner

SHELLS = ("bash", "zsh", "fish")

P4 = sorted(t for t in PlannerService().account.instance_types() if t.startswith("p4"))
US_REGIONS = sorted(
    r for r in PlannerService().account.regions() if r.startswith("us-")
)  # the bundled catalog's


def subcommands() -> list[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return list(sub.choices)


@pytest.fixture(scope="module")
def scripts(tmp_path_factory) -> dict[str, str]:
    env = {"PLANNER_CACHE_DIR": str(tmp_path_factory.mktemp("cache"))}  # the bundled catalog
    found = {}
    for shell in SHELLS:
        r = planner("completion", shell, env=env)
        assert r.code == 0, r.err
        found[shell] = r.out
    return found


@pytest.fixture
def folder(tmp_path):
    """Where completion runs: spec files, a script, a run directory and a file that is none of them."""
    for name in ("a.yaml", "b.yml", "c.json", "train.py", "notes.txt"):
        (tmp_path / name).write_text("")
    (tmp_path / "runs").mkdir()
    return tmp_path


def need(shell: str) -> str:
    path = shutil.which(shell)
    if path is None:
        pytest.skip(
            f"{shell} is not installed here: its script's checks are skipped (the script is still generated)"
        )
    return path


@pytest.mark.parametrize("shell", SHELLS)
def test_the_script_names_subcommands_regions_and_instance_types(scripts, shell):
    script = scripts[shell]
    for command in subcommands():
        assert command in script, command
    service = PlannerService()
    types = service.account.instance_types()
    assert {"g5.xlarge", "c6i.xlarge", "p4d.24xlarge"} <= set(types)
    for name in ("g5.xlarge", "c6i.xlarge", "p4d.24xlarge", *service.account.regions()):
        assert name in script, name
    for flag in ("--targets", "--region", "--chart", "--predict-only"):
        assert flag.lstrip("-") in script, flag  # fish names long flags without their dashes


@pytest.mark.parametrize("shell", SHELLS)
def test_the_script_is_valid_syntax(scripts, shell, tmp_path):
    path = tmp_path / f"planner.{shell}"
    path.write_text(scripts[shell])
    proc = subprocess.run(
        [need(shell), "-n", str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


def test_an_unknown_shell_is_a_usage_error():
    r = planner("completion", "tcsh")
    assert r.code == 2 and "invalid choice" in r.err and "tcsh" in r.err and "fish" in r.err


BASH_COMPLETE = r"""
source "$1"
line="$2"
COMP_LINE="$line"; COMP_POINT=${#line}
COMP_WORDS=(); rest="$line"
# split as bash does for completion: at blanks, with ':' and '=' words of their own (COMP_WORDBREAKS)
while [[ $rest =~ ^[[:space:]]*([^[:space:]:=]+|[:=]) ]]; do COMP_WORDS+=("${BASH_REMATCH[1]}"); rest="${rest:${#BASH_REMATCH[0]}}"; done
[[ $line == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_planner_complete planner
printf '%s\n' "${COMPREPLY[@]}"
"""


def bash_completes(script: str, line: str, cwd) -> list[str]:
    path = cwd / "planner.bash"
    path.write_text(script)
    proc = subprocess.run(
        [need("bash"), "-c", BASH_COMPLETE, "bash", str(path), line],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return sorted(proc.stdout.split())


def test_bash_completes_targets_regions_commands_and_specs(scripts, folder):
    script = scripts["bash"]
    assert bash_completes(script, "planner es", folder) == ["estimate"]
    # after the colon bash replaces only what follows it: the instance type
    assert bash_completes(script, "planner run a.yaml --targets aws:g5.x", folder) == ["g5.xlarge"]
    assert "p4d.24xlarge" in bash_completes(
        script, "planner run a.yaml --targets local,aws:p", folder
    )
    assert bash_completes(script, "planner run a.yaml --targets lo", folder) == ["local"]
    assert bash_completes(script, "planner estimate a.yaml --region us-", folder) == US_REGIONS
    assert bash_completes(script, "planner estimate ", folder) == [
        "a.yaml",
        "b.yml",
        "c.json",
        "runs",
        "train.py",
    ]
    assert bash_completes(script, "planner plan ", folder) == ["runs"]


def fish_completes(script: str, line: str, cwd) -> list[str]:
    path = cwd / "planner.fish"
    path.write_text(script)
    proc = subprocess.run(
        [need("fish"), "--no-config", "-c", f"source {path}; complete -C '{line}'"],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return sorted(row.split("\t")[0] for row in proc.stdout.splitlines())


def test_fish_completes_targets_regions_commands_and_specs(scripts, folder):
    script = scripts["fish"]
    assert fish_completes(script, "planner es", folder) == ["estimate"]
    assert fish_completes(script, "planner run a.yaml --targets aws:g5.x", folder) == [
        "aws:g5.xlarge"
    ]
    assert fish_completes(script, "planner run a.yaml --targets local,aws:p4", folder) == [
        f"local,aws:{t}" for t in P4
    ]
    assert fish_completes(script, "planner estimate a.yaml --region us-", folder) == US_REGIONS
    assert fish_completes(script, "planner estimate ", folder) == [
        "a.yaml",
        "b.yml",
        "c.json",
        "runs/",
        "train.py",
    ]


def test_zsh_loads_it_as_the_completion_function_of_planner(scripts, tmp_path):
    functions = tmp_path / "functions"
    functions.mkdir()
    (functions / "_planner").write_text(scripts["zsh"])  # as the README installs it
    proc = subprocess.run(
        [
            need("zsh"),
            "-f",
            "-c",
            f"fpath=({functions} $fpath); autoload -U compinit; "
            f"compinit -u -d {tmp_path}/dump; print -r -- $_comps[planner]",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "_planner", proc.stdout + proc.stderr
