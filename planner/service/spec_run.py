"""`planner run SPEC`: one run of a spec under way (Runs.run): its journal, its id, where each label was measured,
the targets here and on rented instances, and `auto`'s picks."""

from __future__ import annotations

import datetime as dt
import secrets
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING

from planner.core.candidates import LOCAL, Target
from planner.core.document import PlanOptions
from planner.journal import Measured, RunJournal, RunRecord
from planner.journal_checks import result_problems
from planner.report.choices import choice_words
from planner.service.bench import (
    BenchOptions,
    local_batch,
    local_devices,
    make_job,
    runner_progress,
    scaled_to_spec,
    sized_here,
)
from planner.service.settings import AwsOptions, RunCallbacks, TargetChoice
from runner.aws import AwsRun, AwsTarget
from runner.bench.procfs import memory_available
from runner.local import LocalTarget
from runner.session import BenchSession

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    import threading
    from collections.abc import Sequence

    from planner.core.decide import BenchmarkChoice
    from planner.service.launch import Backstop
    from planner.service.plan import Runs
    from planner.workload.spec import WorkloadSpec
    from runner.bench.result import BenchResult
    from runner.target import Target as SessionTarget

from planner.service.launch import (
    fallback_prices,
    measured_target,
    next_alternatives,
    states_as_launched,
)


class SpecRunning:
    """One `planner run`: its journal, its id, and where each label was measured."""

    def __init__(
        self,
        service: Runs,
        spec: WorkloadSpec,
        spec_text: str | None,
        choice: TargetChoice,
        options: PlanOptions,
        bench: BenchOptions,
        out: Path | None,
        cb: RunCallbacks,
        cancel: threading.Event | None,
    ) -> None:
        self.service, self.spec, self.choice, self.options, self.bench, self.cb, self.cancel = (
            service,
            spec,
            choice,
            options,
            bench,
            cb,
            cancel,
        )
        self.journal = RunJournal.create(spec.name, out)
        self.journal.write_spec(spec, spec_text)
        # Unique per run whatever the directory is called: it names the run's S3 keys and instance tags.
        self.run_id = f"{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
        self.fp = service.workloads.footprint(spec)
        self.info = RunRecord(
            self.run_id,
            list(choice.tokens),
            options,
            bench=asdict(bench),
            # what the real run holds: replans check it
            footprint_bytes=self.fp.total_bytes,
        )
        self.journal.write_run(self.info)
        self.where: dict[str, tuple[Target, str | None, str | None]] = {}
        self.choices: list[BenchmarkChoice] = []  # `auto`'s choice of instances
        self.instances: dict[
            str, AwsTarget
        ] = {}  # the run's AWS targets by label (--fallback next may change the type)

    def record(self, label: str, result: BenchResult) -> None:
        target, region, purchase = self.where[label]
        launched = measured_target(target, self.instances.get(label))
        # --fallback next launched another type: journaled under its name
        if launched is not target:
            target, label = launched, launched.label()
        # measured at a smaller batch when the spec's would not fit the local budget
        if not target.cloud:
            result = scaled_to_spec(result, self.spec.batch_size)
        measured = Measured(target, result, region, purchase)
        self.journal.write_result(label, measured)  # on disk before anything else looks at it
        if self.cb.on_result:
            self.cb.on_result(label, measured)

    def notice(self, label: str, text: str) -> None:
        """What a target's start or the session said (a launch in another zone, a retried call): in run.json's
        `notices` as it happens, then to the front (stderr without one, as the session would)."""
        if label:  # a target's (the run's own, such as a signal's, are said only: they come from a signal handler)
            self.info.notices.append({"label": label, "text": text})
            self.journal.write_run(self.info)
        if self.cb.on_notice:
            self.cb.on_notice(label, text)
        else:
            sys.stderr.write(f"{label}: {text}\n" if label else f"{text}\n")

    def session(
        self, targets: list[SessionTarget], backstops: Sequence[Backstop] = ()
    ) -> BenchSession:
        return BenchSession(
            targets,
            on_state=states_as_launched(
                self.cb.on_state,
                {label: where[0] for label, where in self.where.items()},
                self.instances,
            ),
            on_result=self.record,
            on_progress=runner_progress(self.cb.on_progress),
            cancel=self.cancel,
            backstops=backstops,
            on_notice=self.notice,
        )

    def local_targets(self) -> list[SessionTarget]:
        targets: list[SessionTarget] = []
        for device in local_devices() if LOCAL in self.choice.targets else []:
            label = LOCAL.label(device)
            self.where[label] = (LOCAL, None, None)
            # as it trains there (fp32 on a CPU without the units)
            fp = sized_here(self.spec, self.fp, device)
            batch = local_batch(self.spec, fp, memory_available())
            job = make_job(
                self.spec,
                replace(self.bench, device=device, processes=1),
                fp,  # --processes: AWS only
                batch if batch != self.spec.batch_size else None,
            )
            targets.append(LocalTarget(job.runner_job(), self.journal.path / "work", label))
        return targets

    def auto(self, local_targets: list[SessionTarget], aws: AwsOptions) -> list[str]:
        """Measure here first (the predictions scale this machine's measurement), then choose the
        instances worth a paid benchmark. Returns their types."""
        self.session(local_targets).run()
        local = self.journal.read_results().get(LOCAL.label("cpu"))
        if local is None or local.result.status != "ok":
            return []
        choices = self.service.predict.auto_choices(self.spec, self.options, local, aws)
        self.choices = choices
        self.info.auto = [choice_words(c) for c in choices]
        self.journal.write_run(self.info)
        if self.cb.on_choices:
            self.cb.on_choices(choices)
        return [c.instance_type for c in choices if c.benchmark]

    def aws_targets(
        self,
        aws_types: list[str],
        aws: AwsOptions,
        priced: tuple[dict[str, float], dict[str, str], float],
    ) -> tuple[list[AwsTarget], list[Backstop]]:
        """(targets, backstops) for the instances of the run; with --fallback next, each with the plan's next-best
        instances of its kind (the plan of what is measured so far: every instance predicted where nothing is)."""
        prices, arches, worst = priced
        catalog = self.service.account.catalog().frame
        fallback = fallback_prices(aws_types, aws, catalog)
        aws_run = AwsRun(
            aws.settings(),
            self.run_id,
            session=self.service.account.aws_session,
            check_result=result_problems,
        )
        nexts = (
            next_alternatives(
                aws_run,
                self.service.predict.plan_of(
                    self.spec, self.options, self.journal.read_results()
                ).plan,
                aws_types,
                aws,
                catalog,
                worst,
            )
            if aws.fallback == "next"
            else {}
        )
        # CUDA where the instance has it; a custom model's code ships in the bundle (too big: InputError)
        job = aws_run.ship(
            make_job(self.spec, replace(self.bench, device="auto"), self.fp).runner_job()
        )
        targets = []
        for itype in aws_types:
            target = Target("aws", itype)
            self.where[target.label()] = (target, aws.region, aws.purchase)
            targets.append(
                AwsTarget(
                    aws_run,
                    itype,
                    job,
                    target.label(),
                    prices[itype],
                    arches[itype],
                    fallback_price=fallback.get(itype),
                    alternatives=nexts.get(itype, []),
                )
            )
        self.instances = {t.label: t for t in targets}
        return targets, [aws_run.terminate_run]
