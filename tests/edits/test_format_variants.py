"""Properties over formatting variants of the five files ``ffgen new`` edits.

Each strategy writes one of the files the way a person might have: comments between entries,
trailing comments, banners, blank lines, trailing commas or none, ``'`` or ``"``, one-line or
multi-line containers, parenthesised imports, unrelated entries and statements, shuffled orders.
For every variant:

(a) ``add`` changes only the inserted entries: the line diff is added lines only, each one the
    new ``from .<module> import <Class>`` line, or the new entry with a comma on its own line at
    its siblings' indentation (four spaces in an empty multi-line container), or, for the first
    import of a category package that only had ``__all__``, the blank line below that import.
    Two layouts allow one changed line instead, and exactly this change:
    - a multi-line container whose last element has no trailing comma, when the entry goes
      last: that element's line gains one ``,`` right after its code (before any comment), and
      the new entry follows on its own line, without a comma (the container keeps its style);
    - a one-line container: its line gains the entry and one ``", "`` separator at one place
      (into an empty one, the entry alone; ``("x",)`` for a tuple), and no line is added for it;
(b) a second ``add`` is a no-op: status ``unchanged``, the same text;
(c) ``remove`` of the added entry gives the input back byte for byte (and is a no-op before);
(d) the output parses and keeps every pre-existing import, dict entry and ``__all__`` name in
    order, plus exactly the new ones.
"""

from __future__ import annotations

import ast
import difflib
import keyword
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst
from edits_reference import BUILTINS, HPARAMS_BLOCK
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ffgen.edits._order import module_key
from ffgen.edits.registries import (
    EditResult,
    add_args_init_export,
    add_args_registry_entry,
    add_category_reexport,
    add_hparams_reexport,
    add_trainer_registry_entry,
    remove_args_init_export,
    remove_args_registry_entry,
    remove_category_reexport,
    remove_hparams_reexport,
    remove_trainer_registry_entry,
)

SETTINGS = settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- the new algorithm's names ------------------------------------------------------------------

TAKEN_MODULES = {module for _, module, *_ in BUILTINS} | {"offline_dpo", "sft", "awr", "rwr"}
TAKEN_KEYS = {key for key, *_ in BUILTINS}

new_keys = (
    st.from_regex(r"[a-z][a-z0-9]{0,7}(-[a-z0-9]{1,5}){0,2}", fullmatch=True)
    .filter(lambda k: k not in TAKEN_KEYS and k.replace("-", "_") not in TAKEN_MODULES)
    .filter(lambda k: k.replace("-", "_").isidentifier())
    .filter(lambda k: not keyword.iskeyword(k.replace("-", "_")))  # `ffgen new` refuses those
)


def stem(key: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in key.split("-"))


# -- one bracketed container, in a drawn layout -------------------------------------------------

QUOTES = st.sampled_from(['"', "'"])
# What may stand above an element (or an import line): blank lines, comment lines, banners.
ABOVE = st.lists(
    st.sampled_from(["", "# group", "# ==========", "#tight, with a comma", "# 'quoted'"]),
    max_size=2,
).map(tuple)
INDENTS = st.sampled_from(["    ", "  ", "        "])


@dataclass(frozen=True)
class Layout:
    one_line: bool
    trailing_comma: bool
    indent: str = "    "
    above: tuple[tuple[str, ...], ...] = ()  # per element
    trailing: tuple[bool, ...] = ()  # per element: a trailing comment
    closing: tuple[str, ...] = ()  # lines above the closing bracket
    remark: bool = False  # a comment after the opening bracket, or after a one-line container


@st.composite
def layouts(draw, n: int, *, one_line: bool | None = None, comma_needed: bool = False) -> Layout:
    """A layout for ``n`` elements. ``comma_needed``: a one-element tuple keeps its comma."""
    flat = draw(st.booleans()) if one_line is None else one_line
    comma = n > 0 and (draw(st.booleans()) or (comma_needed and n == 1))
    if flat:
        return Layout(True, comma, remark=draw(st.booleans()))
    return Layout(
        False,
        comma,
        indent=draw(INDENTS),
        above=tuple(draw(ABOVE) for _ in range(n)),
        trailing=tuple(draw(st.booleans()) for _ in range(n)),
        closing=draw(ABOVE),
        remark=draw(st.booleans()),
    )


@dataclass(frozen=True)
class Block:
    """A container the new entry joins, and how that may show in the diff."""

    entry: str  # the new element as written, e.g. '"my-algo": MyAlgoArgs'
    layout: Layout
    line: str  # one-line: the container's line; multi-line: the last element's line ("" if none)
    empty: bool
    parens: bool = False  # a tuple or a parenthesised import: one element keeps its comma

    @property
    def indent(self) -> str:
        """Where the entry's line starts: as its siblings, four spaces in an empty container."""
        return "    " if self.empty else self.layout.indent


def render(
    head: str, brackets: str, items: list[str], layout: Layout, entry: str
) -> tuple[str, Block]:
    """``head`` + the container; ``brackets`` is e.g. ``"[]"`` or ``""`` (a bare import list)."""
    opener, closer = (brackets[0], brackets[1]) if brackets else ("", "")
    if layout.one_line:
        inner = ", ".join(items) + ("," if layout.trailing_comma else "")
        line = f"{head}{opener}{inner}{closer}" + ("  # the public names" if layout.remark else "")
        return line + "\n", Block(entry, layout, line, not items, brackets == "()")
    lines = [head + opener + ("  # keep in step with the docs" if layout.remark else "")]
    for i, item in enumerate(items):
        lines += [layout.indent + extra if extra else "" for extra in layout.above[i]]
        comma = "," if i < len(items) - 1 or layout.trailing_comma else ""
        tail = "  # note" if layout.trailing[i] else ""
        lines.append(f"{layout.indent}{item}{comma}{tail}")
    last = lines[-1] if items else ""
    lines += [layout.indent + extra if extra else "" for extra in layout.closing]
    lines.append(closer)
    return "\n".join(lines) + "\n", Block(entry, layout, last, not items, brackets == "()")


# -- whole statements and the file around them --------------------------------------------------

UNRELATED = [
    "logger = logging.getLogger(__name__)\n",
    '_VERSION = "1.0"  # not an entry\n',
    "def helper():\n    return None\n",
    "if TYPE_CHECKING:\n    from .typing_only import Hint\n",
    "try:\n    import yaml\nexcept ImportError:\n    yaml = None\n",
]


@st.composite
def decorated(draw, statement: str, *, comment: bool = True) -> str:
    """A statement with drawn lines above it and maybe a trailing comment on its last line."""
    above = "".join(f"{line}\n" for line in draw(ABOVE))
    if comment and draw(st.booleans()) and statement.count("\n") == 1:
        statement = statement[:-1] + "  # why\n"
    return above + statement


@st.composite
def import_line(draw, module: str, names: list[str]) -> str:
    """``from .module import names`` as one line, parenthesised on one line, or wrapped."""
    form = draw(st.sampled_from(["bare", "parens", "wrapped"] if len(names) > 1 else ["bare"]))
    if form == "bare":
        return f"from {module} import {', '.join(names)}\n"
    if form == "parens":
        return f"from {module} import ({', '.join(names)})\n"
    layout = draw(layouts(len(names), one_line=False))
    text, _ = render(f"from {module} import ", "()", names, layout, "")
    return text


def ordered(draw, items: list, key: Callable) -> list:
    """Sorted the way isort has it, or in a drawn order."""
    if draw(st.booleans()):
        return sorted(items, key=key)
    return draw(st.permutations(items))


@st.composite
def sibling_imports(
    draw, pairs: list[tuple[str, list[str]]], fixed: tuple[tuple[str, str], ...] = ()
) -> str:
    """The ``from .<module> import`` lines, one per module, each maybe decorated; ``fixed`` are
    (module, statement) pairs already written (a container the entry joins) that take part in
    the order but keep their text."""
    rendered = [
        (module, draw(decorated(draw(import_line("." + module, names))))) for module, names in pairs
    ]
    rendered += [(module, draw(decorated(text, comment=False))) for module, text in fixed]
    chosen = ordered(draw, rendered, key=lambda pair: module_key(pair[0]))
    return "".join(text for _, text in chosen)


@st.composite
def unrelated(draw) -> str:
    chosen = draw(st.lists(st.sampled_from(UNRELATED), max_size=2, unique=True))
    return "".join("\n" + statement for statement in chosen)


DOCSTRING = st.sampled_from(['"""Module docstring."""\n\n', "# a header comment\n\n", ""])


def gap() -> st.SearchStrategy[str]:
    """The blank lines between two parts of a module."""
    return st.sampled_from(["\n", "\n\n", ""])


# -- variants, and the checks every variant must pass -------------------------------------------


@dataclass(frozen=True)
class Variant:
    text: str
    blocks: tuple[Block, ...]
    new_lines: tuple[str, ...]  # whole lines add may insert outside any container
    add: Callable[[str], EditResult]
    remove: Callable[[str], EditResult]
    new_imports: tuple[tuple[str, str], ...]  # (module with dots, name) bindings add creates
    new_elements: dict[str, str] = field(default_factory=dict)  # container name -> new element


def gain_comma(line: str) -> str:
    """``line`` with one comma right after its code, before any trailing comment."""
    code = line.split("  #")[0].rstrip()
    return code + "," + line[len(code) :]


def widened_by_one(old: str, new: str, block: Block) -> bool:
    """``new`` is ``old`` with the entry and one ", " separator inserted once; into an empty
    container the entry alone (``("x",)``: a one-element tuple keeps its comma)."""
    entry = block.entry
    if block.empty:
        pieces = [entry + "," if block.parens else entry]
    else:
        pieces = [", " + entry, entry + ", "]
    for piece in pieces:
        at = new.find(piece)
        while at != -1:
            if new[:at] + new[at + len(piece) :] == old:
                return True
            at = new.find(piece, at + 1)
    return False


def check_only_insertions(before: str, after: str, variant: Variant) -> None:
    """Property (a): see the module docstring for the two allowed one-line changes."""
    old, new = before.splitlines(), after.splitlines()
    added = set(variant.new_lines)
    for block in variant.blocks:
        if not block.layout.one_line:
            added.add(block.indent + block.entry + ",")
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        assert tag in ("insert", "replace"), (tag, old[i1:i2], new[j1:j2])
        lines = new[j1:j2]
        if tag == "replace":
            assert i2 - i1 == 1, ("more than one line changed", old[i1:i2], lines)
            lines = changed_line(old[i1], lines, variant.blocks)
        for line in lines:
            assert line in added, f"unexpected added line {line!r}"


def changed_line(old: str, new: list[str], blocks: tuple[Block, ...]) -> list[str]:
    """Match one changed line to an allowed change; return the other lines, which must be plain
    additions (difflib may put an added line before or after the changed one)."""
    for block in blocks:
        if block.line != old:
            continue
        for at, line in enumerate(new):
            if block.layout.one_line and widened_by_one(old, line, block):
                return new[:at] + new[at + 1 :]
            if not block.layout.one_line and not block.layout.trailing_comma:
                if new[at : at + 2] == [gain_comma(old), block.indent + block.entry]:
                    return new[:at] + new[at + 2 :]
    raise AssertionError(f"line {old!r} changed to {new!r}, which no rule allows")


def facts(code: str) -> tuple[Counter, dict[str, list[str]]]:
    """Top-level from-import bindings, and the elements of every module-level literal."""
    tree = ast.parse(code)
    imports: Counter = Counter()
    containers: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            origin = "." * node.level + (node.module or "")
            imports.update((origin, alias.name, alias.asname) for alias in node.names)
        target, value = _assignment(node)
        if isinstance(value, ast.Dict):
            containers[target] = [
                f"{ast.unparse(k) if k else '**'}: {ast.unparse(v)}"
                for k, v in zip(value.keys, value.values, strict=True)
            ]
        elif isinstance(value, ast.List | ast.Tuple):
            containers[target] = [ast.unparse(element) for element in value.elts]
    return imports, containers


def _assignment(node: ast.stmt) -> tuple[str, ast.expr | None]:
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id, node.value
    return "", None


def check_keeps_entries(before: str, after: str, variant: Variant) -> None:
    """Property (d): everything that was there still is, in order, plus exactly the new ones."""
    old_imports, old_containers = facts(before)
    new_imports, new_containers = facts(after)
    wanted = old_imports + Counter((m, n, None) for m, n in variant.new_imports)
    assert new_imports == wanted
    assert new_containers.keys() == old_containers.keys()
    for name, elements in new_containers.items():
        entry = variant.new_elements.get(name)
        if entry is None:
            assert elements == old_containers[name], name
            continue
        assert elements.count(entry) == 1, (name, entry, elements)
        assert [e for e in elements if e != entry] == old_containers[name], name


def check_variant(variant: Variant) -> None:
    before = variant.text
    cst.parse_module(before)  # the strategy itself must write valid Python
    once = variant.add(before)
    assert once.status == "changed", once.reason
    check_only_insertions(before, once.code, variant)
    check_keeps_entries(before, once.code, variant)
    assert variant.add(once.code) == EditResult("unchanged", once.code)
    assert variant.remove(once.code) == EditResult("changed", before)
    assert variant.remove(before) == EditResult("unchanged", before)


def element(text: str) -> str:
    """How :func:`facts` writes an element: through ``ast.unparse``."""
    tree = ast.parse("{" + text + "}" if ":" in text else text, mode="eval").body
    if isinstance(tree, ast.Dict):
        return f"{ast.unparse(tree.keys[0])}: {ast.unparse(tree.values[0])}"
    return ast.unparse(tree)


def quote_of(quotes: list[str]) -> str:
    """The quote the edit copies: the first string's, double when there is none."""
    return quotes[0] if quotes else '"'


@st.composite
def quote_styles(draw, n: int) -> list[str]:
    """One quote for all ``n`` strings, or a drawn mix."""
    if draw(st.booleans()):
        return [draw(QUOTES)] * n
    return [draw(QUOTES) for _ in range(n)]


@st.composite
def with_splat(draw, items: list[str], splat: str) -> list[str]:
    """Maybe an unrelated ``**mapping`` / ``*names`` element at a drawn place."""
    if not draw(st.booleans()):
        return items
    at = draw(st.integers(0, len(items)))
    return [*items[:at], splat, *items[at:]]


def builtin_subset() -> st.SearchStrategy[list[tuple[str, str, str, str]]]:
    """Some built-in algorithms, in a drawn (registration) order."""
    return st.lists(st.sampled_from(BUILTINS), unique_by=lambda b: b[0], max_size=8)


def module_pairs(chosen: list[tuple[str, str, str, str]]) -> list[tuple[str, list[str]]]:
    """One import per arguments module (``grpo`` and ``grpo-guard`` share one)."""
    pairs: dict[str, list[str]] = {}
    for _, module, class_name, _ in chosen:
        pairs.setdefault(module, [class_name])
    return list(pairs.items())


# -- training_args/_registry.py -----------------------------------------------------------------

FUTURE = "from __future__ import annotations\n\n"
HEADERS = st.sampled_from(
    [FUTURE + "import importlib\nfrom typing import Dict, Type\n\n", "import importlib\n\n", ""]
)
BANNERS = st.sampled_from(
    ["", "# ======\n# Registry (new keys are appended last)\n# ======\n", "# the registry\n"]
)
ARGS_TAIL = (
    "\n\ndef get_training_args_class(identifier):\n"
    "    return _TRAINING_ARGS_REGISTRY[identifier.lower()]\n"
)


@st.composite
def args_registry_variants(draw) -> Variant:
    key = draw(new_keys)
    module, class_name = key.replace("-", "_"), stem(key) + "TrainingArguments"
    chosen = draw(builtin_subset())
    assume(class_name not in {c for _, _, c, _ in BUILTINS})
    imports = draw(sibling_imports([("_base", ["TrainingArguments"]), *module_pairs(chosen)]))
    quotes = draw(quote_styles(len(chosen)))
    items = [f"{q}{k}{q}: {c}" for q, (k, _, c, _) in zip(quotes, chosen, strict=True)]
    items = draw(with_splat(items, "**_PLUGIN_ARGS"))
    q = quote_of(quotes)
    entry = f"{q}{key}{q}: {class_name}"
    annotation = draw(st.sampled_from(["", ": Dict[str, Type[TrainingArguments]]", ": dict"]))
    head = f"_TRAINING_ARGS_REGISTRY{annotation} = "
    registry, block = render(head, "{}", items, draw(layouts(len(items))), entry)
    text = (
        draw(DOCSTRING)
        + draw(HEADERS)
        + imports
        + draw(unrelated())
        + "\n"
        + draw(gap())
        + draw(BANNERS)
        + registry
        + ARGS_TAIL
    )
    names = {"key": key, "module": module, "class_name": class_name}
    return Variant(
        text,
        (block,),
        (f"from .{module} import {class_name}",),
        lambda code: add_args_registry_entry(code, **names),
        lambda code: remove_args_registry_entry(code, **names),
        ((f".{module}", class_name),),
        {"_TRAINING_ARGS_REGISTRY": element(entry)},
    )


@SETTINGS
@given(args_registry_variants())
def test_args_registry_variants(variant: Variant) -> None:
    check_variant(variant)


# -- training_args/__init__.py ------------------------------------------------------------------

GC_NAMES = ["GradientCheckpointingPolicy", "GradientCheckpointingSpec"]


@st.composite
def all_list(draw, names: list[str], new: str, *, head: str = "__all__") -> tuple[str, Block]:
    """``__all__`` as a list or tuple of ``names`` in a drawn layout, quoting and annotation."""
    quotes = draw(quote_styles(len(names)))
    items = [f"{q}{name}{q}" for q, name in zip(quotes, names, strict=True)]
    items = draw(with_splat(items, "*_EXTRA_NAMES"))
    tuple_form = draw(st.booleans())
    annotation = draw(st.sampled_from(["", ": list[str]"])) if not tuple_form else ""
    layout = draw(layouts(len(items), comma_needed=tuple_form))
    q = quote_of(quotes)
    return render(
        f"{head}{annotation} = ", "()" if tuple_form else "[]", items, layout, f"{q}{new}{q}"
    )


@st.composite
def args_init_variants(draw) -> Variant:
    key = draw(new_keys)
    module, class_name = key.replace("-", "_"), stem(key) + "TrainingArguments"
    chosen = draw(builtin_subset())
    assume(class_name not in {c for _, _, c, _ in BUILTINS})
    pairs = [
        ("_base", ["EvaluationArguments", "TrainingArguments"]),
        ("_registry", ["get_training_args_class", "list_registered_training_args"]),
        *module_pairs(chosen),
    ]
    if draw(st.booleans()):
        pairs = [(m, [*n, "TeacherConfig"] if m == "opd" else n) for m, n in pairs]
    parent = draw(st.sampled_from(["", draw(import_line("..gradient_checkpointing", GC_NAMES))]))
    bound = [name for _, names in pairs for name in names] + (GC_NAMES if parent else [])
    exported = draw(st.lists(st.sampled_from(bound), unique=True)) if bound else []
    all_text, block = draw(all_list(exported, class_name))
    text = (
        draw(DOCSTRING)
        + parent
        + draw(sibling_imports(pairs))
        + draw(unrelated())
        + "\n"
        + draw(gap())
        + draw(decorated(all_text, comment=False))
    )
    names = {"module": module, "class_name": class_name}
    return Variant(
        text,
        (block,),
        (f"from .{module} import {class_name}",),
        lambda code: add_args_init_export(code, **names),
        lambda code: remove_args_init_export(code, **names),
        ((f".{module}", class_name),),
        {"__all__": element(block.entry)},
    )


@SETTINGS
@given(args_init_variants())
def test_args_init_variants(variant: Variant) -> None:
    check_variant(variant)


# -- hparams/__init__.py ------------------------------------------------------------------------

HPARAMS_OTHERS = [
    ("acceleration_args", ["AccelerationArguments"]),
    ("args", ["Arguments"]),
    ("data_args", ["DataArguments"]),
    ("optimizer_args", ["AdamWOptimizerArguments", "MuonOptimizerArguments", "OptimizerArguments"]),
    ("reward_args", ["RewardArguments"]),
]


@st.composite
def training_args_block(draw, new: str) -> tuple[list[str], str, Block]:
    """The ``from .training_args import ...`` statement the new name joins."""
    names = draw(st.lists(st.sampled_from(HPARAMS_BLOCK), unique=True, min_size=1))
    names = ordered(draw, names, key=HPARAMS_BLOCK.index)
    head = "from .training_args import "
    form = draw(st.sampled_from(["bare", "parens", "wrapped"]))
    if form == "bare":
        text, block = render(head, "", names, Layout(True, False), new)
    else:
        layout = draw(layouts(len(names), one_line=form == "parens"))
        text, block = render(head, "()", names, layout, new)
    return names, text, block


@st.composite
def hparams_init_variants(draw) -> Variant:
    key = draw(new_keys)
    class_name = stem(key) + "TrainingArguments"
    assume(class_name not in HPARAMS_BLOCK)
    others = draw(st.lists(st.sampled_from(HPARAMS_OTHERS), unique_by=lambda pair: pair[0]))
    names, block_text, block = draw(training_args_block(class_name))
    imports = draw(sibling_imports(others, fixed=(("training_args", block_text),)))
    bound = names + [name for _, group in others for name in group]
    exported = draw(st.lists(st.sampled_from(bound), unique=True))
    all_text, all_block = draw(all_list(exported, class_name))
    text = draw(DOCSTRING) + imports + draw(unrelated()) + "\n" + draw(gap()) + all_text
    return Variant(
        text,
        (block, all_block),
        (),
        lambda code: add_hparams_reexport(code, class_name=class_name),
        lambda code: remove_hparams_reexport(code, class_name=class_name),
        ((".training_args", class_name),),
        {"__all__": element(all_block.entry)},
    )


@SETTINGS
@given(hparams_init_variants())
def test_hparams_init_variants(variant: Variant) -> None:
    check_variant(variant)


# -- trainers/registry.py -----------------------------------------------------------------------

TRAINER_TAIL = (
    "\n\ndef register_trainer(name):\n"
    "    def decorator(cls):\n"
    '        _TRAINER_REGISTRY[name] = f"{cls.__module__}.{cls.__name__}"\n'
    "        return cls\n\n"
    "    return decorator\n"
)


@st.composite
def trainer_registry_variants(draw) -> Variant:
    key = draw(new_keys)
    category = draw(st.sampled_from(["rl", "distillation", "offline"]))
    dotted = f"flow_factory.trainers.{category}.{key.replace('-', '_')}.{stem(key)}Trainer"
    chosen = draw(builtin_subset())
    key_quotes = draw(quote_styles(len(chosen)))
    value_quotes = draw(quote_styles(len(chosen)))
    items = [
        f"{kq}{k}{kq}: {vq}{path}{vq}"
        for kq, vq, (k, _, _, path) in zip(key_quotes, value_quotes, chosen, strict=True)
    ]
    items = draw(with_splat(items, "**_PLUGIN_TRAINERS"))
    kq, vq = quote_of(key_quotes), quote_of(value_quotes)
    entry = f"{kq}{key}{kq}: {vq}{dotted}{vq}"
    annotation = draw(st.sampled_from(["", ": Dict[str, str]"]))
    registry, block = render(
        f"_TRAINER_REGISTRY{annotation} = ", "{}", items, draw(layouts(len(items))), entry
    )
    text = (
        draw(DOCSTRING)
        + draw(HEADERS)
        + draw(unrelated())
        + "\n"
        + draw(gap())
        + draw(BANNERS)
        + registry
        + TRAINER_TAIL
    )
    return Variant(
        text,
        (block,),
        (),
        lambda code: add_trainer_registry_entry(code, key=key, dotted_path=dotted),
        lambda code: remove_trainer_registry_entry(code, key=key, dotted_path=dotted),
        (),
        {"_TRAINER_REGISTRY": element(entry)},
    )


@SETTINGS
@given(trainer_registry_variants())
def test_trainer_registry_variants(variant: Variant) -> None:
    check_variant(variant)


# -- trainers/<category>/__init__.py ------------------------------------------------------------

CATEGORY_TRAINERS = [
    ("awr", "AWRTrainer"),
    ("offline_dpo", "OfflineDPOTrainer"),
    ("rwr", "RWRTrainer"),
    ("sft", "SFTTrainer"),
]
CATEGORY_PATH = "src/flow_factory/trainers/offline/__init__.py"


@st.composite
def category_init_variants(draw) -> Variant:
    key = draw(new_keys)
    module, class_name = key.replace("-", "_"), stem(key) + "Trainer"
    assume(class_name not in {c for _, c in CATEGORY_TRAINERS})
    form = draw(st.sampled_from(["imports and __all__", "imports only", "__all__ only"]))
    if form == "__all__ only":
        trainers: list[tuple[str, str]] = []
    else:
        trainers = draw(st.lists(st.sampled_from(CATEGORY_TRAINERS), unique=True, min_size=1))
    parent = draw(st.sampled_from(["", "from ..abc import BaseTrainer\n"]))
    imports = draw(sibling_imports([(m, [c]) for m, c in trainers]))
    blocks: tuple[Block, ...] = ()
    all_text, elements = "", {}
    if form != "imports only":
        exported = draw(st.lists(st.sampled_from([c for _, c in trainers] or ["x"]), unique=True))
        all_text, all_block = draw(all_list(exported if trainers else [], class_name))
        all_text = "\n" + draw(gap()) + draw(decorated(all_text, comment=False))
        blocks, elements = (all_block,), {"__all__": element(all_block.entry)}
    text = draw(DOCSTRING) + parent + imports + draw(unrelated()) + all_text
    new_lines = [f"from .{module} import {class_name}"] + ([""] if not trainers else [])
    names = {"module": module, "class_name": class_name, "path": CATEGORY_PATH}
    return Variant(
        text,
        blocks,
        tuple(new_lines),
        lambda code: add_category_reexport(code, **names),
        lambda code: remove_category_reexport(code, **names),
        ((f".{module}", class_name),),
        elements,
    )


@SETTINGS
@given(category_init_variants())
def test_category_init_variants(variant: Variant) -> None:
    check_variant(variant)


@settings(max_examples=20, deadline=None)
@given(DOCSTRING, st.sampled_from(["", "from ..abc import BaseTrainer\n"]), unrelated())
def test_category_without_reexports_is_skipped(docstring: str, parent: str, rest: str) -> None:
    code = docstring + parent + rest
    result = add_category_reexport(code, module="zeta", class_name="ZetaTrainer", path="i.py")
    assert result.status == "skipped" and result.code == code
    assert "does not re-export its trainers" in result.reason


# -- regressions the properties found -----------------------------------------------------------


def test_empty_multi_line_registry_takes_the_entry_on_its_own_line() -> None:
    # It used to come out as `{\n"my-algo": "x.My"}`: no indentation, the bracket glued on.
    before = "_TRAINER_REGISTRY = {\n    # add new algorithms here\n}\n"
    result = add_trainer_registry_entry(before, key="my-algo", dotted_path="x.My")
    assert result == EditResult(
        "changed",
        '_TRAINER_REGISTRY = {\n    # add new algorithms here\n    "my-algo": "x.My",\n}\n',
    )
    removed = remove_trainer_registry_entry(result.code, key="my-algo", dotted_path="x.My")
    assert removed == EditResult("changed", before)


def test_removing_the_last_entry_leaves_no_blank_line() -> None:
    before = 'from ._base import T\nfrom .a import A\n\n__all__ = [\n    "A",\n]\n'
    result = remove_args_init_export(before, module="a", class_name="A")
    assert result == EditResult("changed", "from ._base import T\n\n__all__ = [\n]\n")


def test_first_category_import_is_undone_exactly() -> None:
    # `__all__` right under header comments (no docstring): add puts the import above it with a
    # blank line between; remove used to leave that blank line behind.
    before = "# offline trainers\n\n__all__ = []\n"
    names = {"module": "zeta", "class_name": "ZetaTrainer", "path": CATEGORY_PATH}
    result = add_category_reexport(before, **names)
    assert result == EditResult(
        "changed",
        '# offline trainers\n\nfrom .zeta import ZetaTrainer\n\n__all__ = ["ZetaTrainer"]\n',
    )
    assert remove_category_reexport(result.code, **names) == EditResult("changed", before)
    glued = "from ..abc import BaseTrainer\n__all__ = []\n"
    result = add_category_reexport(glued, **names)
    assert result.code == (
        "from ..abc import BaseTrainer\nfrom .zeta import ZetaTrainer\n\n"
        '__all__ = ["ZetaTrainer"]\n'
    )
    assert remove_category_reexport(result.code, **names) == EditResult("changed", glued)
