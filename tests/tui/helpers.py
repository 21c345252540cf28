"""What the TUI tests share: a tiny workload that benches in a second, a fixed plan document (so
screens with predicted rows are the same on every machine), a saved run journal, and waiting for
the app without sleeping longer than it needs."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAVED_RUN = FIXTURES / "run-surface-mlp"  # `planner run examples/surface-mlp.yaml --targets local`
PLAN_DOC = FIXTURES / "surface-mlp-plan.json"  # PlannerService.estimate_run over SAVED_RUN, saved

TINY = (
    "name: tui-tiny\nmodel: {kind: mlp, input_size: 4, hidden: [16], outputs: 1}\n"
    "data: {samples: 1024}\ntrain: {batch_size: 128, epochs: 20}\n"
)

COMMENTED = """# a spec with the user's own comments and layout
name: commented   # what I call it
model:
  kind: mlp
  input_size: 2
  hidden: [20, 5]   # two layers
  outputs: 1
data:
  samples: 4000
train:
  batch_size: 400
  epochs: 20        # enough for a first look
"""


def plan_doc():
    """The saved plan document, read by the one converter (a typed PlanDocument)."""
    from planner.core.document_json import from_json

    return from_json(json.loads(PLAN_DOC.read_text()), str(PLAN_DOC))


async def wait_for(pilot, condition, timeout: float = 120.0, step: float = 0.1) -> None:
    """Until `condition()` holds, at most `timeout` seconds of wall time; on a timeout the message
    carries what the app showed (its notifications, the run pane's log), so a failure says why."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        await pilot.pause(step)
        if time.monotonic() > deadline:
            raise AssertionError(
                f"condition never became true within {timeout:g} s; the app showed: {app_state(pilot.app)}"
            )


def app_state(app) -> str:
    parts = [f"notifications {[str(n.message) for n in getattr(app, '_notifications', [])]}"]
    try:
        from textual.widgets import Log

        parts.append(f"run log {list(app.query_one('#run-log', Log).lines)[-15:]}")
        parts.append(f"targets {getattr(app, 'targets', None)}, focused {app.focused!r}")
    except Exception as exc:  # noqa: BLE001 - a diagnostic never hides the real failure
        parts.append(f"({type(exc).__name__} reading the run pane)")
    return "; ".join(parts)


async def settled(pilot) -> None:
    """The spec validated and the messages it set off handled."""
    await wait_for(pilot, lambda: pilot.app.spec is not None, timeout=30)
    await pilot.pause(0.3)


def active_pane(app) -> str:
    return app.query_one("TabbedContent").active.removeprefix("tab-")


def text_of(app, selector: str) -> str:
    return str(app.query_one(selector).render())


def without_aws_credentials(monkeypatch, tmp_path: Path) -> None:
    """No AWS credentials anywhere boto3 looks (environment, profile files, instance metadata): nothing can launch."""
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    for key in ("AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"):
        monkeypatch.setenv(key, str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@contextlib.asynccontextmanager
async def started(app, size: tuple[int, int]):
    """`app.run_test(size=size)` once its first frame is painted and the panes after it mounted (Textual's Lazy: all
    but Workload mount after the first frame)."""
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.panes_mounted, timeout=10.0, step=0.02)
        yield pilot
