"""What a run of a script asks: its length (or none: crossovers), its environment, the job the journal keeps."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from planner.core.remarks import LengthNotGiven, Remark, ScriptEnvGiven
from planner.core.task import TaskOrigin, secret_env
from planner.errors import InputError

PER_STEPS = 1_000  # without the run's length, the plan is of this many steps


# the lengths the answer is checked at, then bisected
LENGTHS = tuple(m * 10**k for k in range(2, 9) for m in (1, 2, 5))


@dataclass(frozen=True)
class Crossover:
    """The run length (steps) from which the headline's pick is `after`, `before` below it."""

    steps: int
    before: str
    after: str


def length_free_warning(crossovers: list[Crossover]) -> LengthNotGiven:
    """What a plan without the run's length says: that it is of PER_STEPS steps, and where the answer changes."""
    return LengthNotGiven(
        PER_STEPS, tuple((c.steps, c.before, c.after) for c in crossovers), LENGTHS[0], LENGTHS[-1]
    )


class RunLengthUnknown(InputError):
    """The whole run's length cannot be known from the measurement (no --total-steps, and --epochs without a
    DataLoader epoch to count steps in, or neither): the measurement stands, and a length given later plans it.
    `run_dir`: the run journal that holds the measurement (None: none was written)."""

    run_dir: str | None = None


@dataclass(frozen=True)
class ScriptLength:
    """How long the whole run is, as the user gives it: optimizer steps, or DataLoader epochs (None: not given)."""

    total_steps: int | None = None
    epochs: int | None = None


@dataclass(frozen=True)
class ScriptEnv:
    """What a script gets in its environment beyond the planner's own (a SkyPilot task's `envs` and `secrets`,
    `--env`, `--secret`): `envs` are set wherever it runs, journaled and sent with it to an instance; `secrets` are
    set here only — never journaled, never uploaded. An env whose name looks like a secret (an API key, a token, a
    password, a cloud's credentials: planner.core.task.secret_env) is a secret, wherever it was given."""

    envs: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls, envs: dict[str, str] | None = None, secrets: dict[str, str] | None = None
    ) -> ScriptEnv:
        both = sorted(set(envs or {}) & set(secrets or {}))
        if both:  # which would the script get, here and on an instance?
            raise InputError(
                f"{', '.join(both)}: given both as an env and as a secret",
                hint="give each name once: --env/envs (set everywhere) or --secret/secrets (set here only)",
            )
        envs, hidden = dict(envs or {}), set(secret_env(envs or {}))
        return cls(
            {k: v for k, v in envs.items() if k not in hidden},
            {**{k: v for k, v in envs.items() if k in hidden}, **(secrets or {})},
        )

    @property
    def here(self) -> dict[str, str]:
        """The environment it gets on this machine."""
        return {**self.envs, **self.secrets}

    def __bool__(self) -> bool:
        return bool(self.envs or self.secrets)

    def said(self) -> list[Remark]:
        """What it gets (names only: a value may be a secret's), none when it gets nothing."""
        return [ScriptEnvGiven(tuple(self.envs), tuple(self.secrets))] if self else []

    def leaked_in(self, args: list[str]) -> str | None:
        """The name of a secret whose value is in the script's arguments (a shell's `-- --token $HF_TOKEN`), which
        the planner prints, journals and sends to instances; None when none is."""
        return next(
            (k for k, v in self.secrets.items() if len(v) >= 4 and any(v in a for a in args)), None
        )


@dataclass(frozen=True)
class ScriptJob:
    """What a run of a script measures (the journal's script.json): the script as the user named it and
    where it is, its own arguments, the whole run's length as given, the seconds of steps measured, the
    folder it runs in when it is not the script's own."""

    script: str
    path: str
    args: list[str] = field(default_factory=list)
    total_steps: int | None = None
    epochs: int | None = None
    seconds: float = 10.0
    # the folder it ran in and shipped (--workdir); None: the script's own
    workdir: str | None = None
    # ScriptEnv.envs it ran with (its secrets are not journaled)
    env: dict[str, str] = field(default_factory=dict)
    # the names of the secrets it ran with here
    secret_names: list[str] = field(default_factory=list)
    # the SkyPilot task that named it (None: the script itself was given)
    task: TaskOrigin | None = None

    @property
    def length(self) -> ScriptLength:
        return ScriptLength(self.total_steps, self.epochs)

    def with_length(self, length: ScriptLength | None) -> ScriptJob:
        """The job planned for another length (None: its own)."""
        return (
            self
            if length is None
            else replace(self, total_steps=length.total_steps, epochs=length.epochs)
        )

    @classmethod
    def from_json(cls, data: Any) -> ScriptJob:
        from pydantic import TypeAdapter

        return TypeAdapter(cls).validate_python(data)
