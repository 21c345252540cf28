"""What a user chooses for a plan, checked once for both fronts: the objective and its deadline rule,
the targets (`local`, `aws:TYPE`, `auto`), the AWS options of a run, the run's callbacks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from planner.core.candidates import LOCAL, Target
from planner.core.document import PlanOptions as PlanOptions  # re-exported
from planner.core.kinds import OBJECTIVES, Objective
from planner.errors import Cancelled, InputError
from planner.service.bench import ProgressFn
from runner.aws import DEFAULT_AMI_TYPE, AwsSettings  # noqa: F401 - light (boto3 is imported when used)

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.core.decide import BenchmarkChoice
    from planner.core.document import LeftRunning
    from planner.core.remarks import LengthNotGiven
    from planner.journal import Measured


@dataclass(frozen=True)
class AutoPreview:
    """What `auto` would benchmark (a dry run's choice), and the length it was chosen for when the run's was not given
    (`per_steps`: planned per 1,000 steps, and the lengths where the answer changes)."""

    choices: list[BenchmarkChoice]
    per_steps: LengthNotGiven | None = None


def resolve_objective(objective: str | None, deadline_seconds: float | None) -> Objective | None:
    """A deadline alone means "cheapest within the deadline"; the deadline objective needs one."""
    if objective is not None and objective not in OBJECTIVES:
        raise InputError(f"--objective: must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if deadline_seconds and objective in (None, "cheapest"):
        return "deadline"
    if objective == "deadline" and not deadline_seconds:
        raise InputError("--objective deadline needs --deadline", hint="e.g. --deadline 4h")
    return objective


@dataclass(frozen=True)
class PlanChoice:
    """What a user chose for a plan, each field as given (None: not given): `planner plan`'s flags over a saved
    run's options, the TUI's what-if controls. `resolved()` is the PlanOptions it means."""

    objective: str | None = None
    deadline_seconds: float | None = None
    time_value_per_hour: float | None = None
    local_price_per_hour: float | None = None
    region: str | None = None
    purchase: str | None = None  # on-demand | spot

    def given(self) -> dict[str, Any]:
        """The fields given, by name (a saved run keeps the rest)."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    def resolved(self) -> PlanOptions:
        """PlanOptions with the defaults for what was not given. Raises InputError (a bad objective, or the
        deadline objective without a deadline)."""
        return plan_options(**self.given())


def plan_options(
    objective: str | None = None, deadline_seconds: float | None = None, **rest: Any
) -> PlanOptions:
    """PlanOptions from what a user chose (CLI flags, TUI controls), with resolve_objective's rule."""
    return PlanOptions(
        objective=resolve_objective(objective, deadline_seconds) or "cheapest",
        deadline_seconds=deadline_seconds,
        **rest,
    )


@dataclass(frozen=True)
class AwsOptions(AwsSettings):
    """What `planner run` needs for aws: targets: the instances' settings (runner.aws.AwsSettings: the
    one place of their defaults) and the run's guards."""

    bench_budget: float = 2.00  # USD: refuse to launch when the worst-case bench cost is over it
    max_instances: int = 8  # instances at once

    def settings(self) -> AwsSettings:
        return self


@dataclass(frozen=True)
class TargetChoice:
    """The targets a user asked for: explicit ones and whether `auto` picks more."""

    targets: tuple[Target, ...]
    auto: bool
    tokens: tuple[str, ...]  # as given (local first when auto adds it), for the run journal

    @property
    def aws_types(self) -> list[str]:
        return [t.instance_type for t in self.targets if t.cloud and t.instance_type]


def parse_targets(text: str) -> TargetChoice:
    """`local`, `aws:INSTANCE_TYPE` and `auto`, checked before anything starts."""
    tokens = list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
    if not tokens:
        raise InputError("--targets: give at least one target, e.g. --targets local,aws:g5.xlarge")
    targets = []
    for token in tokens:
        if token == "auto":
            continue
        try:
            targets.append(Target.parse(token))
        except ValueError:
            raise InputError(
                f"--targets: unknown target {token!r}",
                hint="use local, auto or aws:INSTANCE_TYPE (see `planner prices`)",
            ) from None
    auto = "auto" in tokens
    # auto measures here first: the predictions scale this machine's step
    if auto and LOCAL not in targets:
        tokens, targets = ["local", *tokens], [LOCAL, *targets]
    return TargetChoice(tuple(targets), auto, tuple(tokens))


StateFn = Callable[[str, str, float, float], None]


@dataclass
class RunCallbacks:
    on_progress: ProgressFn | None = None
    # each result the moment it is journaled
    on_result: Callable[[str, Measured], None] | None = None
    on_state: StateFn | None = None
    on_choices: Callable[[list[BenchmarkChoice]], None] | None = None
    on_notice: Callable[[str, str], None] | None = (
        None  # (label or "", text): a retried fault, a deferred signal
    )


class RunStopped(Cancelled):
    """A run stopped before its end: cancelled (the TUI's cancel), or interrupted by Ctrl-C or a signal (`signal_name`,
    `signum`: SIGINT, SIGTERM, SIGHUP). Everything it started was terminated but `unterminated` (each with the
    command that reaps it); its journal, `run_dir`, holds `results` results (0: nothing to plan from yet)."""

    def __init__(
        self,
        run_dir: str,
        unterminated: list[LeftRunning],
        results: int,
        signal_name: str | None = None,
        signum: int | None = None,
    ):
        super().__init__(
            "cancelled: every instance and process of the run was terminated"
            if signal_name is None
            else f"interrupted ({signal_name})"
        )
        self.run_dir, self.unterminated, self.results = run_dir, unterminated, results
        self.signal_name, self.signum = signal_name, signum

    @classmethod
    def of(
        cls, exc: BaseException, run_dir: str, unterminated: list[LeftRunning], results: int
    ) -> RunStopped:
        """The run stopped by `exc`: a Cancelled, or a KeyboardInterrupt (runner.session.Interrupted names the
        signal; a bare one is Ctrl-C's SIGINT)."""
        from runner.session import Interrupted

        if isinstance(exc, Cancelled):
            return cls(run_dir, unterminated, results)
        if isinstance(exc, Interrupted):
            return cls(run_dir, unterminated, results, exc.signal_name, exc.signum)
        return cls(run_dir, unterminated, results, "SIGINT", 2)
