"""The spec's YAML stays the user's: the form's edits land in the text the user wrote.

One field changes and nothing else does: comments, key order, quoting and flow lists like
`[20, 5]` are kept (ruamel.yaml's round trip). An edit that leaves the value as it was returns the
text untouched, so switching to the form and back rewrites nothing. Pure text in, text out: no
Textual here, and no spec rules (validation stays the service's).
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

__all__ = ["YAMLError", "load", "set_field", "set_kind"]


def _yaml(text: str = "") -> YAML:
    """A round-trip YAML that writes with the indentation `text` uses (mapping and block-list
    indents guessed from it), so an edit does not re-indent the user's other lines."""
    from ruamel.yaml.util import load_yaml_guess_indent

    mapping, dash = 2, 2
    if text.strip():
        _doc, guessed, guessed_dash = load_yaml_guess_indent(text)
        mapping = guessed or mapping
        dash = guessed_dash if guessed_dash is not None else dash
    yaml = YAML()  # round-trip mode
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line the user wrote on one
    yaml.indent(mapping=mapping, sequence=dash + 2, offset=dash)
    return yaml


def load(text: str) -> Any:
    """The document (a CommentedMap for a spec); raises YAMLError when it does not parse."""
    return _yaml().load(text) if text.strip() else CommentedMap()


def plain(node: Any) -> Any:
    """The document as plain dicts and lists (what the form shows)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


def _dump(doc: Any, like: str) -> str:
    out = io.StringIO()
    _yaml(like).dump(doc, out)
    return out.getvalue()


def _kind(value: Any) -> type:
    for kind in (bool, int, float, str):  # bool before int: True is an int too
        if isinstance(value, kind):  # ruamel's ScalarFloat is a float, and so on
            return kind
    return type(value)


def same(a: Any, b: Any) -> bool:
    """The same YAML value: 5 is not 5.0 nor True, [20, 5] is [20, 5]."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return _kind(a) is _kind(b) and a == b


def _like(old: Any, new: Any) -> Any:
    """`new` in the style of the value it replaces: a list stays flow (`[32, 8]`) when it was, and a
    new list is written flow, as specs usually write them."""
    if not isinstance(new, list):
        return new
    seq = CommentedSeq(new)
    if not isinstance(old, CommentedSeq) or old.fa.flow_style():
        seq.fa.set_flow_style()
    return seq


def _section(doc: CommentedMap, name: str) -> CommentedMap:
    section = doc.get(name)
    if not isinstance(section, dict):
        section = CommentedMap()
        section.fa.set_block_style()
        doc[name] = section
    return section


def set_field(text: str, path: tuple[str, ...], value: Any) -> str:
    """`text` with the field at `path` ("name",) or ("train", "epochs") set to `value`; None removes
    it. Returns `text` itself when the field already holds that value."""
    doc = load(text)
    if not isinstance(doc, dict):
        doc = CommentedMap()
    *sections, key = path
    parent = doc
    for name in sections:
        if value is None and not isinstance(parent.get(name), dict):
            return text  # removing a field of a section that is not there: nothing to do
        parent = _section(parent, name)
    if value is None:
        if key not in parent:
            return text
        del parent[key]
    else:
        old = parent.get(key)
        if key in parent and same(plain(old), value):
            return text
        parent[key] = _like(old, value)
    return _dump(doc, text)


def set_kind(text: str, kind: str) -> str:
    """`text` with model.kind set to `kind`; another kind has other fields, so the model's other
    fields go (the new kind's required ones are then named by validation)."""
    doc = load(text)
    if not isinstance(doc, dict):
        doc = CommentedMap()
    model = _section(doc, "model")
    if model.get("kind") == kind:
        return text
    for key in [k for k in model if k != "kind"]:
        del model[key]
    if "kind" in model:
        model["kind"] = kind
    else:
        model.insert(0, "kind", kind)
    return _dump(doc, text)
