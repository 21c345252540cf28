"""The README and the docs site stay true without re-running anything (`make docs` runs the commands):
the README is a landing page, every generated sample names a command the CLI takes, the CLI reference is what
the parser says now, and every relative link and included file exists."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 200
LINK = re.compile(
    r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)"
)  # [text](target) and ![alt](target)
SNIPPET = re.compile(r'^--8<-- "([^"]+)"', re.M)
FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.M | re.S)


def load_gen():
    spec = importlib.util.spec_from_file_location("docs_gen", DOCS / "gen.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


gen = load_gen()


def pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def generated_blocks() -> list[tuple[Path, object, str]]:
    return [(page, command, body) for page in pages() for command, body in gen.blocks(page)]


def test_readme_is_a_landing_page():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_README_LINES, (
        f"README.md has {len(lines)} lines; the rest belongs in docs/"
    )


def test_the_readme_and_the_docs_have_generated_samples():
    where = {page for page, _, _ in generated_blocks()}
    assert README in where
    assert len(where) > 5


@pytest.mark.parametrize(
    "page, command, body",
    generated_blocks(),
    ids=lambda x: x.text if hasattr(x, "text") else (x.name if isinstance(x, Path) else ""),
)
def test_every_generated_sample_names_a_command_the_cli_takes(page, command, body, monkeypatch):
    """Parsed by the planner's own parser in the folder it runs from; a sample of a usage error must still be one.
    The files it names exist there. Nothing is run: `make docs` does that."""
    from planner.cli import build_parser

    cwd = ROOT / command.cwd
    assert cwd.is_dir(), f"{page.name}: {command.text}: no folder {command.cwd}"
    monkeypatch.chdir(cwd)
    usage_error = re.search(r"^planner( [a-z-]+)?: error:", body, re.M) is not None
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        try:
            args = build_parser().parse_args(command.planner_args)
        except SystemExit as exc:
            assert usage_error and exc.code == 2, (
                f"{page.name}: the planner refuses `{command.text}`:\n{stderr.getvalue()}"
            )
            return
    assert not usage_error, (
        f"{page.name}: `{command.text}` shows a usage error, but the planner now takes it"
    )
    assert getattr(args, "handler", None) is not None, (
        f"{page.name}: `{command.text}` names no command"
    )
    for value in vars(args).values():
        if isinstance(value, str) and value.endswith((".yaml", ".yml", ".py")):
            assert (cwd / value).is_file(), (
                f"{page.name}: `{command.text}`: no file {value} in {command.cwd}"
            )
    assert body.strip(), f"{page.name}: `{command.text}` was never generated: run make docs"


def test_the_cli_reference_is_what_the_parser_says_now():
    saved = os.environ.get("COLUMNS")
    assert (DOCS / "reference" / "cli.md").read_text() == gen.cli_reference(), (
        "run make docs (or python docs/gen.py --no-run)"
    )
    assert os.environ.get("COLUMNS") == saved


def test_every_benchmark_result_has_its_page():
    for result in sorted((ROOT / "benchmarks" / "results").glob("*.md")):
        page = DOCS / "benchmarks" / "results" / result.name
        assert page.is_file() and page.read_text() == gen.result_page(result), (
            f"run make docs for {result.name}"
        )
        assert f"benchmarks/results/{result.name}" in (ROOT / "mkdocs.yml").read_text(), (
            f"{result.name}: not in the nav"
        )


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text())  # a link-like text in a code sample is no link
    text = re.sub(r"`[^`\n]*`", "", text)
    return LINK.findall(text)


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_included_file_exists(page):
    missing = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL (https:, mailto:) or an anchor on the same page
        path = target.split("#", 1)[0].split("?", 1)[0]
        if not (page.parent / path).exists():
            missing.append(target)
    for included in SNIPPET.findall(page.read_text()):
        if not (ROOT / included).is_file():
            missing.append(f'--8<-- "{included}"')
    assert not missing, f"{page.relative_to(ROOT)}: no such file: {missing}"


def test_parse_command_takes_only_one_planner_command():
    command = gen.parse_command(
        "cd examples/scripts && NAME=value planner bench convnet.py -- --epochs 3 2>&1"
    )
    assert (command.cwd, command.env, command.argv, command.with_stderr) == (
        "examples/scripts",
        {"NAME": "value"},
        ["bench", "convnet.py", "--", "--epochs", "3"],
        True,
    )
    assert command.planner_args == ["bench", "convnet.py"]
    for bad in ("ls -la", "planner estimate x.yaml | head", "cd x planner check y.yaml"):
        with pytest.raises(ValueError):
            gen.parse_command(bad)
