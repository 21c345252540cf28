"""PlannerService: THE ONLY DOOR. The CLI and the TUI call it and render what it returns; they
import nothing from runner/, pricing/, infra/, boto3 or botocore, and hold no rule the other lacks.

One method per use case, implemented where the use case lives (each module a link of the chain
PlannerService inherits, so no method passes through to another):

    account.py      Account: prices, the catalog, instances, terminate, reap, infra (holds the session)
    describe.py     Describe: load, check (live spec text), layers + footprint (once per spec), the form
    measure.py      Measure: bench, validate
    predictions.py  Predict: estimate and its re-plans (plan_of: THE plan of every use case), `auto`, calibrate
    plan.py         Runs: run, a saved run's plan (estimate_run, replan), saved runs
    scripts.py      Scripts: the user's own training script estimated, run and re-planned

It owns no presentation: callers pass callbacks (`on_progress`, ...) and render what comes back.
Heavy libraries (torch, pandas, boto3, pydantic) are imported inside the methods, so importing the
service is cheap (`planner --help` must not pay for them).
"""

from __future__ import annotations

from planner.core.decide import RankedOption, Recommendation
from planner.core.document import SCRIPT_KIND, LeftRunning, PlanDocument, choice_json
from planner.core.script import RunLengthUnknown, ScriptEnv, ScriptJob, ScriptLength
from planner.core.task import ENV_NAME, Task, TaskOrigin
from planner.errors import Cancelled
from planner.journal import Measured
from planner.service.account import PRICE_SOURCES, PriceQuery
from planner.service.measure import BenchOptions, ScriptValidation, unsteady_reason
from planner.service.plan import SavedRun, preflight
from planner.service.scripts import Scripts
from runner.local import SCRIPT_CAP_EXTRA_SECONDS
from runner.script import UNSTEADY_EXTENSION
from planner.service.settings import (
    OBJECTIVES, PURCHASES, AwsOptions, PlanOptions, RunCallbacks, TargetChoice, parse_targets, plan_options,
    resolve_objective,
)
from planner.units import parse_duration

__all__ = ["ENV_NAME", "AwsOptions", "BenchOptions", "Cancelled", "LeftRunning", "Measured", "OBJECTIVES", "PRICE_SOURCES", "PURCHASES", "PlanDocument",
           "PlanOptions", "PlannerService", "PriceQuery", "RankedOption", "Recommendation", "RunCallbacks", "RunLengthUnknown", "SCRIPT_CAP_EXTRA_SECONDS", "SCRIPT_KIND", "SavedRun", "ScriptEnv", "ScriptJob", "ScriptLength", "ScriptValidation", "Task", "TaskOrigin", "UNSTEADY_EXTENSION",
           "TargetChoice", "choice_json", "parse_duration", "parse_targets", "plan_options", "preflight", "resolve_objective",
           "unsteady_reason"]


class PlannerService(Scripts):
    """Every use case, one method each, implemented by the module that owns it (the mixins' chain:
    Account -> Describe -> Measure -> Predict -> Runs -> Scripts). The CLI and the TUI call these and nothing
    below them."""
