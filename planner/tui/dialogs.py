"""The app's dialogs: the quit confirmation (every quit path asks while a run is live or the spec
has unsaved edits, and says which), the run picker (the saved runs of the runs folder, newest
first, with what each recommended — PlannerService.saved_runs — or any run directory typed in), and a
script's run length (its whole run in optimizer steps or DataLoader epochs, when the measurement cannot
know it, or to plan another)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from planner.service import ScriptLength
from planner.service.inputs import parse_flag

if TYPE_CHECKING:
    from planner.service import SavedRun


class _Confirm(ModalScreen[bool]):
    """A yes/no question over `lines`; `n`, escape and the focused default button say no."""

    TEXT_ID = ""
    QUESTION = ""
    YES = NO = ""
    YES_VARIANT = "error"

    def __init__(self, lines: list[str]):
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("\n".join(self.lines) + f"\n{self.QUESTION}"), id=self.TEXT_ID)
            with Horizontal():
                yield Button(self.YES, id="yes", variant=self.YES_VARIANT)  # type: ignore[arg-type]
                yield Button(self.NO, id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class ConfirmQuit(_Confirm):
    """Quit anyway? `reasons`: what quitting would end or lose."""

    DEFAULT_CSS = """
    ConfirmQuit { align: center middle; }
    ConfirmQuit > Vertical { width: 90%; max-width: 72; height: auto; border: thick $error; background: $surface; padding: 1 2; }
    ConfirmQuit #quit-reasons { height: auto; margin-bottom: 1; }
    ConfirmQuit Horizontal { height: auto; align: center middle; }
    ConfirmQuit Button { margin: 0 1; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes, quit"),
        Binding("n,escape", "answer(False)", "No"),
    ]
    TEXT_ID, QUESTION, YES, NO = "quit-reasons", "Quit anyway?", "Quit (y)", "Stay (n)"

    def __init__(self, reasons: list[str] | None = None):
        super().__init__(reasons or ["A run is in progress."])


class ConfirmLaunch(_Confirm):
    """Launch these instances? `lines`: what would be launched, its price, worst case and quotas (the CLI's
    "Proceed? [y/N]"): a run that rents is never one stray key away."""

    DEFAULT_CSS = """
    ConfirmLaunch { align: center middle; }
    ConfirmLaunch > Vertical { width: 90%; max-width: 100; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    ConfirmLaunch #launch-lines { height: auto; margin-bottom: 1; }
    ConfirmLaunch Horizontal { height: auto; align: center middle; }
    ConfirmLaunch Button { margin: 0 1; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes, launch"),
        Binding("n,escape", "answer(False)", "No"),
    ]
    TEXT_ID, QUESTION, YES, NO = "launch-lines", "Launch them?", "Launch (y)", "Cancel (n)"
    YES_VARIANT = "warning"


def run_line(run: SavedRun) -> Text:
    """A saved run as one line of the picker: directory, workload, results, what it recommended."""
    rec = run.recommendation
    answer = f"{rec.target} ({rec.device})" if rec is not None and rec.target else "no plan yet"
    name = run.path.rstrip("/").rsplit("/", 1)[-1]
    return Text(f"{name}  {run.name}  {run.results} result(s)  -> {answer}")


class OpenRun(ModalScreen[str | None]):
    """Pick a saved run; dismissed with its directory, or None."""

    DEFAULT_CSS = """
    OpenRun { align: center middle; }
    OpenRun > Vertical { width: 95%; max-width: 110; height: 80%; border: thick $primary; background: $surface; padding: 0 1; }
    OpenRun OptionList { height: 1fr; }
    OpenRun #run-path { margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "Close")]

    def __init__(self, runs: list[SavedRun], folder: str):
        super().__init__()
        self.runs, self.folder = runs, folder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Saved runs in {self.folder} (enter opens, esc closes)")
            options = [Option(run_line(r), id=r.path) for r in self.runs]
            yield OptionList(*options, id="run-list")
            yield Input(placeholder="or a run directory: path/to/run, enter opens", id="run-path")

    def on_mount(self) -> None:
        if self.runs:
            self.query_one(OptionList).focus()
        else:
            self.query_one("#run-list", OptionList).add_option(
                Option(Text("no saved runs here yet"), disabled=True)
            )
            self.query_one("#run-path", Input).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class RunLength(ModalScreen[ScriptLength | None]):
    """How long the script's whole run is: optimizer steps or DataLoader epochs, each read by its flag's rule
    (--total-steps, --epochs); dismissed with the length, or None (esc). `why`: what asks for it."""

    DEFAULT_CSS = """
    RunLength { align: center middle; }
    RunLength > Vertical { width: 90%; max-width: 80; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
    RunLength #length-why { height: auto; margin-bottom: 1; }
    RunLength .length-field { height: 1; margin-bottom: 1; }
    RunLength .length-field Label { width: 14; }
    RunLength Input { width: 1fr; }
    RunLength #length-error { height: auto; color: $error; }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "Close")]

    def __init__(self, why: str, length: ScriptLength | None = None):
        super().__init__()
        self.why, self.length = why, length or ScriptLength()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(
                    self.why
                    + "\nGive one: enter plans the measurement made, without measuring again; esc "
                    "closes."
                ),
                id="length-why",
            )
            with Horizontal(classes="length-field"):
                yield Label("total steps")
                yield Input(
                    str(self.length.total_steps or ""),
                    placeholder="optimizer steps of the whole run",
                    id="length-steps",
                    compact=True,
                )
            with Horizontal(classes="length-field"):
                yield Label("or epochs")
                yield Input(
                    str(self.length.epochs or ""),
                    placeholder="DataLoader epochs (an epoch must have been seen)",
                    id="length-epochs",
                    compact=True,
                )
            yield Static("", id="length-error")

    def on_mount(self) -> None:
        self.query_one("#length-steps", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """What was said of the last try goes once the user types again."""
        event.stop()
        self.query_one("#length-error", Static).update("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        steps = self.query_one("#length-steps", Input).value.strip()
        epochs = self.query_one("#length-epochs", Input).value.strip()
        error = self.query_one("#length-error", Static)
        if bool(steps) == bool(epochs):
            error.update("give one: total steps, or epochs")
            return
        try:
            length = (
                ScriptLength(total_steps=parse_flag("--total-steps", steps))
                if steps
                else ScriptLength(epochs=parse_flag("--epochs", epochs))
            )
        except ValueError as exc:
            error.update(Text(f"{'total steps' if steps else 'epochs'}: {exc}"))
            return
        self.dismiss(length)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
