"""PlannerService: THE ONLY DOOR. Design notes: docs/reference/modules.md
(planner/service/__init__.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Each name the service exports, and the module it lives in: imported on first use (PEP 562), so a front that needs
# one constant (the CLI's parser: OBJECTIVES, ENV_NAME) does not import every use case and the core with it.
_WHERE = {
    "RankedOption": "planner.core.decide",
    "Recommendation": "planner.core.decide",
    "SCRIPT_KIND": "planner.core.document",
    "LeftRunning": "planner.core.document",
    "PlanDocument": "planner.core.document",
    "choice_json": "planner.core.document_json",
    "RunLengthUnknown": "planner.core.script",
    "ScriptEnv": "planner.core.script",
    "ScriptEstimate": "planner.core.script",
    "ScriptJob": "planner.core.script",
    "ScriptLength": "planner.core.script",
    "Progress": "planner.core.progress",
    "ENV_NAME": "planner.core.task",
    "Task": "planner.core.task",
    "TaskOrigin": "planner.core.task",
    "Cancelled": "planner.errors",
    "Measured": "planner.journal",
    "PRICE_SOURCES": "planner.service.flags",
    "GROUP_BY": "planner.service.flags",
    "DEFAULT_GROUP_BY": "planner.service.flags",
    "GroupBy": "planner.service.flags",
    "PriceQuery": "planner.service.account",
    "PriceList": "pricing.rows",
    "PriceRow": "pricing.rows",
    "BenchOptions": "planner.service.bench",
    "BenchResult": "runner.bench.result",
    "SpecValidation": "planner.service.bench",
    "ScriptValidation": "planner.service.script_checks",
    "unsteady_reason": "planner.service.script_checks",
    "SavedRun": "planner.service.journals",
    "preflight": "planner.service.launch",
    "LaunchPreview": "planner.service.launch",
    "SCRIPT_CAP_EXTRA_SECONDS": "runner.local",
    "UNSTEADY_EXTENSION": "runner.script",
    "OBJECTIVES": "planner.service.flags",
    "PURCHASES": "planner.service.flags",
    "AutoPreview": "planner.service.settings",
    "AwsOptions": "planner.service.settings",
    "PlanChoice": "planner.service.settings",
    "PlanOptions": "planner.service.settings",
    "RunCallbacks": "planner.service.settings",
    "RunStopped": "planner.service.settings",
    "TargetChoice": "planner.service.settings",
    "parse_targets": "planner.service.settings",
    "plan_options": "planner.service.settings",
    "resolve_objective": "planner.service.settings",
    "parse_duration": "planner.units",
    "duration_text": "planner.units",
    "PlannerService": "planner.service.facade",
    "ScriptBench": "planner.service.pipelines",
    "ScriptWorkload": "planner.service.workload",
    "SpecWorkload": "planner.service.workload",
    "Workload": "planner.service.workload",
    "is_script": "planner.service.workload",
    "Journaled": "planner.service.workload",
    "SavedScriptRun": "planner.service.workload",
    "SavedSpecRun": "planner.service.workload",
    "script_command": "planner.service.workload",
    "SpecFields": "planner.workload.form",
}

if TYPE_CHECKING:
    from planner.core.decide import RankedOption, Recommendation
    from planner.core.document import SCRIPT_KIND, LeftRunning, PlanDocument
    from planner.core.document_json import choice_json
    from planner.core.progress import Progress
    from planner.core.script import (
        RunLengthUnknown,
        ScriptEnv,
        ScriptEstimate,
        ScriptJob,
        ScriptLength,
    )
    from planner.core.task import ENV_NAME, Task, TaskOrigin
    from planner.errors import Cancelled
    from planner.journal import Measured
    from planner.service.account import PriceQuery
    from planner.service.bench import BenchOptions, SpecValidation
    from planner.service.facade import PlannerService
    from planner.service.flags import (
        DEFAULT_GROUP_BY,
        GROUP_BY,
        OBJECTIVES,
        PRICE_SOURCES,
        PURCHASES,
        GroupBy,
    )
    from planner.service.journals import SavedRun
    from planner.service.launch import LaunchPreview, preflight
    from planner.service.pipelines import ScriptBench
    from planner.service.script_checks import ScriptValidation, unsteady_reason
    from planner.service.settings import (
        AutoPreview,
        AwsOptions,
        PlanChoice,
        PlanOptions,
        RunCallbacks,
        RunStopped,
        TargetChoice,
        parse_targets,
        plan_options,
        resolve_objective,
    )
    from planner.service.workload import (
        Journaled,
        SavedScriptRun,
        SavedSpecRun,
        ScriptWorkload,
        SpecWorkload,
        Workload,
        is_script,
        script_command,
    )
    from planner.units import duration_text, parse_duration
    from planner.workload.form import SpecFields
    from pricing.rows import PriceList, PriceRow
    from runner.bench.result import BenchResult
    from runner.local import SCRIPT_CAP_EXTRA_SECONDS
    from runner.script import UNSTEADY_EXTENSION


def __getattr__(name: str) -> Any:
    import importlib

    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'planner.service' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once
    return value


__all__ = [
    "DEFAULT_GROUP_BY",
    "ENV_NAME",
    "GROUP_BY",
    "GroupBy",
    "AutoPreview",
    "AwsOptions",
    "BenchOptions",
    "BenchResult",
    "Cancelled",
    "LaunchPreview",
    "LeftRunning",
    "Measured",
    "OBJECTIVES",
    "PRICE_SOURCES",
    "PURCHASES",
    "PlanChoice",
    "PlanDocument",
    "PlanOptions",
    "PlannerService",
    "PriceList",
    "PriceQuery",
    "PriceRow",
    "Progress",
    "RankedOption",
    "Recommendation",
    "RunCallbacks",
    "RunLengthUnknown",
    "RunStopped",
    "SCRIPT_CAP_EXTRA_SECONDS",
    "SCRIPT_KIND",
    "SavedRun",
    "SpecFields",
    "SpecValidation",
    "ScriptEnv",
    "ScriptEstimate",
    "ScriptJob",
    "ScriptLength",
    "ScriptBench",
    "ScriptValidation",
    "ScriptWorkload",
    "SpecWorkload",
    "Task",
    "TaskOrigin",
    "UNSTEADY_EXTENSION",
    "Workload",
    "TargetChoice",
    "choice_json",
    "is_script",
    "Journaled",
    "SavedScriptRun",
    "SavedSpecRun",
    "script_command",
    "parse_duration",
    "duration_text",
    "parse_targets",
    "plan_options",
    "preflight",
    "resolve_objective",
    "unsteady_reason",
]
