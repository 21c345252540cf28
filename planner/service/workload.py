"""The workload a user brings, as one value: a spec (a YAML or JSON spec, a custom model's spec) or a training
script with its arguments, length, folder and environment (a SkyPilot task opens as the script it runs). Every use
case of the service takes one; the fronts open it with `Workloads.open` and do not choose a use case by its kind."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.core.script import ScriptEnv
    from planner.core.task import TaskOrigin
    from planner.service.pipelines import Parts, Pipeline
    from planner.workload.spec import WorkloadSpec


@dataclass(frozen=True)
class SpecWorkload:
    """A workload spec, loaded and checked."""

    spec: WorkloadSpec
    path: str | None = None  # the file, as the user gave it (None: a spec built in memory)
    text: str | None = None  # the file's text, as a run journals it (None: the spec as loaded)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def stem(self) -> str:
        """What its run journals are named by."""
        return self.spec.name

    @property
    def planned_spec(self) -> WorkloadSpec:
        """The spec its plan predicts every instance from (its layers)."""
        return self.spec

    def pipeline(self, parts: Parts) -> Pipeline:
        """Its way through the use cases: benched by the harness, predicted from its layers."""
        from planner.service.pipelines import SpecPipeline

        return SpecPipeline(self, parts)


@dataclass(frozen=True)
class ScriptWorkload:
    """The user's own training script, run unchanged: `planner COMMAND train.py [--total-steps N] -- ARGS`."""

    path: str  # as the user gave it
    args: tuple[str, ...] = ()  # the script's own arguments (after `--`)
    total_steps: int | None = None  # the whole run's optimizer steps, when the user said
    epochs: int | None = None  # or its epochs
    workdir: str | None = None  # where it runs (--workdir); None: its own folder
    env: ScriptEnv | None = None  # --env and --secret
    task: TaskOrigin | None = None  # the SkyPilot task it came from
    requirements: str | None = None  # what an instance installs first (a requirements file)

    @property
    def name(self) -> str:
        """The script's file name, as the Run pane and the progress lines name it."""
        return PurePath(self.path).name

    @property
    def stem(self) -> str:
        """What its run journals are named by: the script's name without .py."""
        return PurePath(self.path).stem

    @property
    def planned_spec(self) -> None:
        """None: a script's plan is of its measured and traced steps, not of a spec's layers."""
        return None

    def pipeline(self, parts: Parts) -> Pipeline:
        """Its way through the use cases: run unchanged here, traced on the stand-in GPU."""
        from planner.service.pipelines import ScriptPipeline

        return ScriptPipeline(self, parts)


Workload = SpecWorkload | ScriptWorkload


def is_script(path: str) -> bool:
    """A path names a training script (a .py file), not a spec: the one place the kind is told from the name."""
    return str(path).endswith(".py")
