"""The boundaries DESIGN.md draws, checked on the code itself (every import, also inside functions):

- one door: the CLI and the TUI import the service, the report, the errors and their own modules,
  and nothing from runner/, pricing/, infra/, boto3 or botocore;
- nothing imports the CLI but its own entry point;
- no import circle among the project's modules;
- the pure core imports no I/O library;
- the bench shipped to instances imports only torch and the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ("planner", "runner", "pricing", "infra")
FRONT_ALLOWED = (
    "planner.service",
    "planner.report",
    "planner.errors",
    "planner.cli",
    "planner.tui",
)
FORBIDDEN_IN_FRONTS = ("runner", "pricing", "infra", "boto3", "botocore")
PURE_CORE = (
    "planner/core",
    "planner/workload/footprint.py",
    "pricing/facts.py",
    "pricing/billing.py",
)
IO_LIBRARIES = (
    "boto3",
    "botocore",
    "pandas",
    "torch",
    "textual",
    "rich",
    "subprocess",
    "socket",
    "requests",
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            found[module_name(path)] = path
    return found


def _runtime_nodes(tree: ast.AST):
    """Every node, except what sits under `if TYPE_CHECKING:` (never imported at run time)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if (
            isinstance(node, ast.If)
            and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING"
        ):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def imports(path: Path) -> set[str]:
    """Every module `path` imports at run time, at any depth of the file (lazy imports count)."""
    tree = ast.parse(path.read_text())
    out = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(
                f"{node.module}.{alias.name}" for alias in node.names
            )  # `from pkg import module`
    return out


def test_the_fronts_go_through_the_one_door():
    offences = []
    for name, path in sources().items():
        if not name.startswith(("planner.cli", "planner.tui")):
            continue
        for imported in imports(path):
            top = imported.split(".")[0]
            if top in FORBIDDEN_IN_FRONTS:
                offences.append(f"{name} imports {imported}")
            elif (
                top == "planner"
                and imported != "planner"
                and not imported.startswith(FRONT_ALLOWED)
                and imported not in ("planner.__version__",)
            ):
                offences.append(f"{name} imports {imported} (only the service, report and errors)")
    assert offences == []


def test_nothing_imports_the_cli_but_its_entry_point():
    offences = [
        f"{name} imports {imp}"
        for name, path in sources().items()
        if not name.startswith("planner.cli")
        for imp in imports(path)
        if imp == "planner.cli" or imp.startswith("planner.cli.")
    ]
    assert offences == []


def test_no_import_circle():
    modules = sources()
    graph = {
        name: {i for i in imports(path) if i in modules and i != name}
        for name, path in modules.items()
    }
    # a package's __init__ re-exporting its own submodules is not a circle between two units
    graph = {
        name: {
            i
            for i in deps
            if not (name == i.rsplit(".", 1)[0] and modules[name].name == "__init__.py")
        }
        for name, deps in graph.items()
    }
    seen: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        seen[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if seen.get(dep) == 1:
                cycles.append(stack[stack.index(dep) :] + [dep])
            elif dep not in seen:
                visit(dep)
        stack.pop()
        seen[node] = 2

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in seen:
            visit(node)
    assert cycles == []


def _files(rels) -> list[Path]:
    return [
        p
        for rel in rels
        for p in (sorted((ROOT / rel).rglob("*.py")) if (ROOT / rel).is_dir() else [ROOT / rel])
    ]


def test_the_pure_core_does_no_io():
    files = _files(PURE_CORE)
    assert len(files) > 10  # the core's modules, not an empty glob
    for path in files:
        bad = [
            i for i in imports(path) if i.split(".")[0] in IO_LIBRARIES + ("time", "os", "pathlib")
        ]
        assert bad == [], path


# Dependencies point one way: fronts -> service -> core, workload, journal -> data. What each layer
# may import from the project (its own modules always).
LAYERS = {
    "planner.core": (
        "planner.core",
        "planner.workload",
        "planner.errors",
        "planner.units",  # the closed sets of words a user types (Objective, GroupBy): pure, one definition
        "pricing.facts",
        "pricing.billing",
        "runner.bench.result",
    ),
    "planner.workload": (
        "planner.workload",
        "planner.core.formats",
        "planner.errors",
        "planner.units",
    ),
    "runner": ("runner", "pricing", "infra", "planner.errors"),
    "pricing": ("pricing", "infra", "planner.errors"),
    "infra": ("infra", "planner.errors"),
}


def test_dependencies_point_one_way():
    project = PACKAGES
    offences = []
    for name, path in sources().items():
        layer = next(
            (layer for layer in LAYERS if name == layer or name.startswith(layer + ".")), None
        )
        if layer is None:
            continue
        for imported in imports(path):
            if (
                imported.split(".")[0] in project
                and imported != "__future__"
                and not any(imported == a or imported.startswith(a + ".") for a in LAYERS[layer])
            ):
                offences.append(f"{name} imports {imported}")
    assert offences == []


def test_the_bench_imports_only_torch_and_the_standard_library():
    stdlib = set(sys.stdlib_module_names)
    shipped = [
        *(ROOT / "runner" / "bench").glob("*.py"),
        ROOT / "runner" / "script.py",
        ROOT / "runner" / "script_job.py",
        ROOT / "runner" / "standin.py",
    ]
    for path in shipped:  # what runner/bundle.py ships to instances
        for imported in imports(path):
            top = imported.split(".")[0]
            assert top in stdlib or top in ("torch", "runner", "__future__"), (
                f"{path.name} imports {imported}"
            )
            if top == "runner":
                assert imported.startswith(("runner.bench", "runner.script", "runner.standin")), (
                    f"{path.name} imports {imported}"
                )


# Where planner/ may hold an untyped `dict[str, Any]`: JSON and YAML at the edges (a document written or read,
# the runner's job and result, boto3's answers, the user's spec before it is parsed) and keyword arguments built
# within one function. Anything that crosses a layer is a typed value (docs/architecture.md, "Typed seams").
UNTYPED_DICTS_ALLOWED = {
    # JSON written or read: the plan document, journal files, --json output, the IAM policy printed
    "planner/core/document.py": {"as_dict"},
    "planner/core/document_json.py": {
        "strict_json",
        "plan_json",
        "_option_json",
        "to_json",
        "choice_json",
        "_script_workload_of_3",
        "_shaped",
    },
    "planner/core/remarks/base.py": {"remark_json"},
    "planner/core/progress.py": {"progress_of"},
    "planner/core/script/timeline.py": {"from_json"},
    "planner/journal.py": {"from_json", "to_dict", "from_dict"},
    "planner/journal_checks.py": {"<module>", "_problems"},
    "planner/report/prices.py": {"prices_json"},
    "planner/report/remarks/base.py": {"remark_json"},
    "planner/report/tables.py": {"check_summary", "bench_json", "script_json"},
    "planner/report/text.py": {"worded_json"},
    "planner/service/bench.py": {"runner_progress", "to_json"},
    "planner/service/script_checks.py": {"to_json"},
    "planner/service/account.py": {"infra_policy", "_managed", "_filters"},
    # the runner's job, as JSON the launcher or the instance reads
    "planner/service/bench_job.py": {"BenchJob", "runner_job"},
    "planner/service/script_run.py": {"_aws_targets", "_instance_job"},
    "planner/workload/spec.py": {"to_job"},
    # the user's spec or task as YAML gives it, before it is parsed; pydantic's error context
    "planner/core/task.py": {"_text", "read_task", "_named_values", "_unused"},
    "planner/core/task_resources.py": {"_choice"},
    "planner/tui/form.py": {"__init__", "_fields", "rebuild"},
    "planner/workload/spec_messages.py": {"_length_message", "early_consistency", "whole"},
    # keyword arguments of one constructor, built within the module
    "planner/core/candidates.py": {"measured_candidate"},
    "planner/core/predict/parallel.py": {"predict_data_parallel", "_over_fabric"},
    # a rented row's shared fields (rented_fields) for Candidate(**...)
    "planner/core/predicted.py": {"rented_fields", "cpu", "gpus", "_gpu"},
    "planner/core/script/instances.py": {"cpu", "gpu", "_row"},
    "planner/service/settings.py": {"given"},
    "planner/cli/completion.py": {"completion_script"},
}


UNTYPED = {"dict[str, Any]", "Mapping[str, Any]"}


def _untyped_dicts() -> list[tuple[str, int, str]]:
    """Each `dict[str, Any]` (or `Mapping[str, Any]`) annotation or cast in planner/'s code, however it is wrapped
    over lines: (file, line, the function or class around it)."""
    found = []
    for path in sorted((ROOT / "planner").rglob("*.py")):
        tree = ast.parse(path.read_text())
        around: dict[int, tuple[int, str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    if line not in around or around[line][0] < node.lineno:
                        around[line] = (node.lineno, node.name)
        for node in ast.walk(tree):
            text = ast.unparse(node) if isinstance(node, ast.Subscript) else ""
            # a string annotation ("dict[str, Any]") is a constant
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            if text in UNTYPED:
                name = around.get(node.lineno, (0, "<module>"))[1]
                found.append((str(path.relative_to(ROOT)), node.lineno, name))
    return found


def test_no_untyped_dict_crosses_a_layer():
    found = _untyped_dicts()
    assert len(found) > 20  # the scan sees the code (the edges hold many)
    # it sees annotations wrapped over lines and string annotations too
    seen = {(p, name) for p, _, name in found}
    assert ("planner/journal_checks.py", "<module>") in seen and (
        "planner/core/progress.py",
        "progress_of",
    ) in seen
    strays = [
        f"{p}:{n} in {name}" for p, n, name in found if name not in UNTYPED_DICTS_ALLOWED.get(p, ())
    ]
    assert not strays, (
        "a dict[str, Any] outside the edges: give it a typed value (a dataclass, a pydantic model), or, if it "
        "is JSON or YAML at an edge, add it to UNTYPED_DICTS_ALLOWED with the reason:\n"
        + "\n".join(strays)
    )


# Functions that are tables (a command's flags, a script's rows): long by their entries, not by their logic
LONG_TABLES = {
    ("planner/cli/parsers/plan.py", "add_run_parser"),
    ("planner/cli/parsers/account.py", "add_prices_parser"),
    ("planner/report/tables.py", "script_rows"),
}


def test_files_and_functions_stay_readable():
    """planner/ at ruff's width of 100: no file over 400 lines, no function over 60 but the tables."""
    long_files, long_functions = [], []
    for path in sorted((ROOT / "planner").rglob("*.py")):
        source, name = path.read_text(), str(path.relative_to(ROOT))
        if len(source.splitlines()) > 400:
            long_files.append(f"{name}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                span = (node.end_lineno or node.lineno) - node.lineno + 1
                if span > 60 and (name, node.name) not in LONG_TABLES:
                    long_functions.append(f"{name}:{node.lineno} {node.name}: {span} lines")
    assert not long_files, "split these files by what they do:\n" + "\n".join(long_files)
    assert not long_functions, "split these functions into named parts:\n" + "\n".join(
        long_functions
    )
