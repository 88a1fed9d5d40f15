"""Example YAML configs, loaded with PyYAML and kept with their node tree for line numbers."""

from __future__ import annotations

import dataclasses

from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView

SUFFIXES = (".yaml", ".yml")  # every config under examples/, at any depth
DEFAULT_TRAINER_TYPE = "grpo"  # Arguments.from_dict's default


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Example:
    path: str
    data: object  # the loaded document (None when it did not parse)
    node: object  # the composed yaml node, for line numbers
    error: tuple[int, str] | None = None
    # A light copy keeps the text instead of the node (a node tree takes ~8x the loaded data):
    # line numbers compose it again when a finding asks for one.
    text: str | None = None

    @property
    def train(self) -> dict:
        t = self.data.get("train") if isinstance(self.data, dict) else None
        return t if isinstance(t, dict) else {}

    @property
    def trainer_type(self) -> str:
        value = self.train.get("trainer_type", DEFAULT_TRAINER_TYPE)
        return str(value).lower()

    def line(self, *keys: str | int) -> int:
        """1-based line of the deepest existing node along ``keys``; when not even the first key
        exists, the line that selects the algorithm (``train.trainer_type``), else 1."""
        node, line = self.node, 0
        if node is None and self.text is not None:
            node = _compose(self.text)
        for key in keys:
            child = _child(node, key)
            if child is None:
                break
            node, line = child[1], child[0]
        if line == 0 and keys[:2] != ("train", "trainer_type"):
            return self.line("train", "trainer_type")
        return line or 1


def _child(node: object, key: str | int) -> tuple[int, object] | None:
    import yaml

    if isinstance(node, yaml.MappingNode) and isinstance(key, str):
        for k, v in node.value:
            if getattr(k, "value", None) == key:
                return k.start_mark.line + 1, v
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        v = node.value[key]
        return v.start_mark.line + 1, v
    return None


def load_examples(view: CheckoutView) -> tuple[Example, ...]:
    return tuple(read_example(view, p) for p in example_paths(view))


def example_paths(view: CheckoutView) -> list[str]:
    """Every example config, sorted (one walk of the folder for both suffixes)."""
    return [p for p in view.files(f"{layout.EXAMPLES_DIR}/**/*") if p.endswith(SUFFIXES)]


def read_example(view: CheckoutView, path: str) -> Example:
    """One unreadable config (not UTF-8, no permission) is a finding on that file (FF002);
    verify goes on with the others."""
    from ffgen.errors import FfgenError

    try:
        text = view.read(path) or ""
    except FfgenError as exc:
        return Example(path, None, None, (1, exc.message.removeprefix(f"{path} ")))
    # shared by everyone reading this view (hints, verify): loaded once per file content
    return view.parsed("yaml", path, text, _load_example)


def read_light_example(view: CheckoutView, path: str) -> Example:
    """:func:`read_example` without the node tree (its text instead), not kept by the view."""
    from ffgen.errors import FfgenError

    try:
        text = view.read(path) or ""
    except FfgenError:
        return read_example(view, path)
    example = load_example(path, text)
    if example.node is None:
        return example
    return Example(path, example.data, None, example.error, text)


def _compose(text: str) -> object:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _load_example(text: str, path: str) -> Example:
    return load_example(path, text)


def load_example(path: str, text: str) -> Example:
    import yaml

    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_cls(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        return Example(path, None, None, (line, str(getattr(exc, "problem", exc))))
    finally:
        loader.dispose()
    return Example(path, data, node)
