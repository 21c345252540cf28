"""The spec as a form, generated from the spec's field descriptions (PlannerService.spec_form, read
from the pydantic models in planner/spec.py): a Select for every field with fixed choices (model
kind, activation, task, optimizer, ...), an Input for the rest (lists as comma-separated numbers).
Every edit is written into the YAML editor as a whole spec, where the one validation path (the
CLI's) runs — the form holds no rules of its own."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Input, Label, Select

from planner.tui.messages import FormEdited

# The "nothing selected" sentinel: Select.NULL since Textual 1.x, Select.BLANK before.
NO_SELECTION = getattr(Select, "NULL", None) or Select.BLANK


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _value(text: str) -> Any:
    """What the user typed, as YAML would read it: numbers, lists of numbers, else the text."""
    text = text.strip()
    if "," in text or text.startswith("["):
        return [_value(part) for part in text.strip("[]").split(",") if part.strip()]
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


class SpecForm(VerticalScroll):
    DEFAULT_CSS = """
    SpecForm { height: 1fr; }
    SpecForm Label { margin-top: 1; color: $text-muted; }
    SpecForm Input, SpecForm Select { width: 100%; }
    """

    def __init__(self, data: dict[str, Any] | None = None):
        super().__init__(id="spec-form")
        self.data = data or {}
        self._building = False
        self._lock = asyncio.Lock()

    def compose(self) -> ComposeResult:
        return iter(())  # built from the editor's YAML when first shown (rebuild)

    def _visible(self) -> bool:
        return getattr(self.parent, "current", None) == self.id

    def _schema(self) -> dict[str, Any]:
        if not hasattr(self, "_form"):
            self._form = self.app.service.spec_form()
        return self._form

    def _fields(self) -> ComposeResult:
        data, schema = self.data, self._schema()
        model = data.get("model") or {}
        kind = model.get("kind") if model.get("kind") in schema["kinds"] else "mlp"
        yield Label("name")
        yield Input(_text(data.get("name")), id="f-name")
        yield Label("model.kind")
        yield Select([(k, k) for k in schema["kinds"]], value=kind, id="f-model-kind", allow_blank=False)
        for field in [*schema["kinds"][kind], *schema["sections"]]:
            section, name = field.section, field.name
            yield Label(f"{section}.{name}")
            current = (data.get(section) or {}).get(name, None if field.required else field.default)
            if field.choices:
                value = str(current) if str(current) in field.choices else NO_SELECTION
                yield Select([(c, c) for c in field.choices], value=value, id=f"f-{section}-{name}", allow_blank=True)
            else:
                yield Input(_text(current), id=f"f-{section}-{name}", classes="list" if field.is_list else "",
                            placeholder="comma-separated" if field.is_list else "")

    def collect(self) -> dict[str, Any]:
        """The spec the form shows, as a plain dict (empty fields left out: validation names them)."""
        out: dict[str, Any] = {"model": {}, "data": {}, "train": {}}
        for widget in self.query("Input, Select"):
            key = (widget.id or "")[2:]
            section, _, field = key.partition("-")
            raw = widget.value
            if raw is NO_SELECTION or raw is None or (isinstance(raw, str) and not raw.strip()):
                continue
            value = raw if isinstance(widget, Select) else _value(raw)
            if widget.has_class("list") and not isinstance(value, list):
                value = [value]  # "16" in a list field is the list [16]
            if section == "name":
                out["name"] = str(raw).strip()
            else:
                out[section][field] = value
        return out

    def kind(self) -> str:
        model = self.data.get("model") or {}
        return model.get("kind") if model.get("kind") in self._schema()["kinds"] else "mlp"

    async def rebuild(self, data: dict[str, Any]) -> None:
        async with self._lock:
            self._building = True
            self.data = data
            await self.remove_children()
            await self.mount_all(list(self._fields()))
            self._building = False

    async def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self._building or not self._visible():
            return
        if event.select.id == "f-model-kind":
            if event.value == self.kind():
                return  # the select announcing its initial value, not an edit
            data = self.collect()  # another kind has other fields
            data["model"] = {"kind": event.value}
            await self.rebuild(data)
        self.post_message(FormEdited(self.collect()))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if not self._building and self._visible():
            self.post_message(FormEdited(self.collect()))
