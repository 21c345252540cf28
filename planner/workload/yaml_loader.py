"""A YAML SafeLoader for specs and tasks: it refuses duplicate keys and bounds depth, alias expansion and the
length of a number (imported when a YAML file is read, so `planner --help` does not load yaml)."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent, CollectionStartEvent
from yaml.nodes import MappingNode, ScalarNode

from planner.workload.limits import MAX_DEPTH, MAX_NUMBER_CHARS, MAX_VALUES, brief, cut

STR_TAG = "tag:yaml.org,2002:str"


def refuse(problem: str, mark: Any) -> ComposerError:
    """Valid YAML, but not a spec: the error is said without the "not valid YAML" prefix."""
    error = ComposerError(None, None, problem, mark)
    error.refused = True
    return error


class BoundedSafeLoader(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.values = 0  # values so far, aliases expanded
        self.sizes: dict[int, int] = {}  # id(node) -> its expanded size, once complete

    def _count(self, n: int, mark: Any) -> None:
        self.values += n
        if self.values > MAX_VALUES:
            raise refuse(
                f"more than {MAX_VALUES:,} values in the spec (an alias counts its anchor's values "
                "again); a spec has a few dozen",
                mark,
            )

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            target = self.anchors.get(event.anchor)
            if target is not None:  # (an undefined alias is PyYAML's own error)
                size = self.sizes.get(id(target))
                if size is None:
                    raise refuse(
                        f"alias *{cut(event.anchor, 40)} is inside its own anchor (a cycle)",
                        event.start_mark,
                    )
                self._count(size, event.start_mark)
            return super().compose_node(parent, index)
        is_collection = isinstance(event, CollectionStartEvent)
        if is_collection and self.depth >= MAX_DEPTH:
            raise refuse(
                f"nested more than {MAX_DEPTH} levels deep; a spec is 3 levels deep",
                event.start_mark,
            )
        before = self.values
        self._count(1, event.start_mark)
        self.depth += is_collection
        try:
            node = super().compose_node(parent, index)
        finally:
            self.depth -= is_collection
        self.sizes[id(node)] = self.values - before
        if isinstance(node, MappingNode):
            _refuse_duplicate_keys(node)
        return node

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, ArithmeticError, LookupError, AttributeError) as exc:
            # PyYAML's own converters fail this way on e.g. 2001-13-45 or `!!int ""`
            kind = str(node.tag).rsplit(":", 1)[-1]
            why = f" ({cut(str(exc), 80)})" if type(exc) is ValueError else ""
            raise ConstructorError(
                None,
                None,
                f"cannot read {brief(getattr(node, 'value', ''), 40)} as {kind}{why}",
                node.start_mark,
            ) from None


def _refuse_duplicate_keys(node: Any) -> None:
    # Only text keys are compared: the spec's keys are field names, and other keys are refused
    # later anyway. Merge keys (<<) are not compared: overriding merged keys is their purpose.
    first_line: dict[str, int] = {}
    for key_node, _ in node.value:
        if isinstance(key_node, ScalarNode) and key_node.tag == STR_TAG:
            if key_node.value in first_line:
                raise refuse(
                    f"duplicate key {brief(key_node.value, 40)} (first on line "
                    f"{first_line[key_node.value]}); each key may appear once",
                    key_node.start_mark,
                )
            first_line[key_node.value] = key_node.start_mark.line + 1


def _bounded_number(base: Any) -> Any:
    """`base`, a number's constructor, refusing a number written with more than MAX_NUMBER_CHARS characters."""

    def construct(loader: Any, node: Any) -> Any:
        if isinstance(node.value, str) and len(node.value) > MAX_NUMBER_CHARS:
            raise refuse(
                f"a number written with {len(node.value):,} characters; no field of a spec needs more "
                "than 20",
                node.start_mark,
            )
        return base(loader, node)

    return construct


for _tag in ("int", "float"):
    _full = f"tag:yaml.org,2002:{_tag}"
    BoundedSafeLoader.add_constructor(
        _full, _bounded_number(yaml.SafeLoader.yaml_constructors[_full])
    )


def key_lines(text: str) -> dict[str, int]:
    """Where each key and list entry of a YAML spec starts, by its path as a spec's problems name it
    (`train.batch_size`, `model.layers[2]`; spec_messages._path): the line (1-based). {} for text that does not
    compose (its own error says where)."""
    loader = BoundedSafeLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError:
        return {}
    finally:
        loader.dispose()
    lines: dict[str, int] = {}
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, ScalarNode):
                    name = cut(key.value, 40)  # as spec_messages._path names it
                    path = f"{where}.{name}" if where else name
                    lines.setdefault(path, key.start_mark.line + 1)
                    stack.append((value, path))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines.setdefault(f"{where}[{i}]", item.start_mark.line + 1)
                stack.append((item, f"{where}[{i}]"))
    return lines
