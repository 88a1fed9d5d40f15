"""The param edits (``ffgen param``): on an unedited render they give exactly the render with the
param, for every family; they undo each other; they are idempotent; a missing anchor fails with
one line naming it."""

from __future__ import annotations

import pytest

from ffgen.classify.interview import complete_non_interactive, from_flags
from ffgen.classify.names import parse_name
from ffgen.classify.rules import classify
from ffgen.edits.args_param import add_param, remove_param
from ffgen.edits.base import EditFailure
from ffgen.edits.param_lines import add_doc_row, add_train_key, remove_doc_row, remove_train_key
from ffgen.generate import render
from ffgen.generate.context import build_context
from ffgen.quality.golden import EXAMPLES

PARAMS = ["margin:float=0.1:>=0", "mode:str=a:a|b"]


def _render(example: str, params: list[str]) -> tuple[str, str, str, str]:
    """(args class name, args module, example config, docs section) of a golden example."""
    name, flags = EXAMPLES[example]
    answers = from_flags({**flags, "model_type": "toy", "params": "\n".join(params) or None})
    answers, _ = complete_non_interactive(answers, ("toy",))
    ctx = build_context(parse_name(name), classify(answers))
    return (
        ctx.args_class,
        render.render(render.ARGS_TEMPLATE, ctx),
        render.render(render.EXAMPLE_TEMPLATE, ctx),
        render.render(render.DOCS_TEMPLATE, ctx).strip(),
    )


def _views(params: list[str]):
    from ffgen.classify.params import parse_param
    from ffgen.generate.param_code import param_view

    return [param_view(parse_param(p)) for p in params]


def _added(cls: str, args: str, example: str, docs: str, params: list[str]):
    for view in _views(params):
        result = add_param(args, view, class_name=cls, path="args.py")
        assert result.status == "changed", result.reason
        args = result.code
        example = add_train_key(example, view.name, view.yaml)
        docs = add_doc_row(docs, view.name, view.doc_row)
    return args, example, docs


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_adding_to_the_plain_render_gives_the_render_with_the_params(example):
    """Rule: ``param add`` on untouched files writes what ``new --param`` writes, byte for byte
    (the class, the example and the docs section), in every family."""
    cls, *plain = _render(example, [])
    _, *with_params = _render(example, PARAMS)
    assert list(_added(cls, *plain, PARAMS)) == with_params


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_removing_from_the_render_with_params_gives_the_plain_render(example):
    """Rule: ``param remove`` undoes ``--param`` exactly, ``import math`` included where only
    the param used it."""
    cls, args, config, docs = _render(example, PARAMS)
    _, *plain = _render(example, [])
    for view in reversed(_views(PARAMS)):
        result = remove_param(args, view, class_name=cls, path="args.py")
        assert result.status == "changed", result.reason
        args = result.code
        config = remove_train_key(config, view.name)
        docs = remove_doc_row(docs, view.name)
    assert [args, config, docs] == plain


def test_the_edits_are_idempotent():
    cls, args, config, docs = _render("sft_demonstrations", PARAMS)
    for view in _views(PARAMS):
        assert add_param(args, view, class_name=cls, path="a.py").status == "unchanged"
        assert add_train_key(config, view.name, view.yaml) == config
        assert add_doc_row(docs, view.name, view.doc_row) == docs
    cls, args, config, docs = _render("sft_demonstrations", [])
    for view in _views(PARAMS):
        assert remove_param(args, view, class_name=cls, path="a.py").status == "unchanged"
        assert remove_train_key(config, view.name) == config
        assert remove_doc_row(docs, view.name) == docs


@pytest.mark.parametrize("example", ["sft_demonstrations", "grpo_coupled"])
def test_a_user_edited_class_gets_the_field_after_its_own_last_field(example):
    """Rule: the field lands after the last field, whatever the user added there; the checks at
    the end of ``__post_init__``, after the user's own."""
    cls, args, _, _ = _render(example, [])
    edited = args.replace(
        "    def __post_init__(self) -> None:",
        "    mine: int = 3\n\n    def __post_init__(self) -> None:",
    )
    edited = _append_to_post_init(edited, "        assert self.mine\n")
    view = _views(PARAMS[:1])[0]
    code = add_param(edited, view, class_name=cls, path="a.py").code
    assert code.index("    mine: int = 3") < code.index("    margin: float = field(")
    assert code.index("assert self.mine") < code.index("if isinstance(self.margin, bool)")
    compile(code, "a.py", "exec")


def _append_to_post_init(code: str, line: str) -> str:
    import ast

    node = next(n for n in ast.walk(ast.parse(code))
                if isinstance(n, ast.FunctionDef) and n.name == "__post_init__")
    lines = code.splitlines(keepends=True)
    lines.insert(node.end_lineno, line)
    return "".join(lines)


def test_a_missing_class_or_post_init_is_one_line_naming_it():
    cls, args, _, _ = _render("sft_demonstrations", [])
    view = _views(PARAMS[:1])[0]
    result = add_param(args.replace(f"class {cls}(", "class Renamed("), view, class_name=cls,
                       path="a.py")
    assert result.status == "failed"
    assert result.reason.startswith(f"a.py: no class {cls} found")
    no_post_init = args.replace("def __post_init__(self)", "def _renamed(self)")
    result = add_param(no_post_init, view, class_name=cls, path="a.py")
    assert result.status == "failed" and "has no __post_init__" in result.reason


def test_removing_a_param_whose_checks_were_changed_is_refused():
    """Rule: ``param remove`` never leaves code reading a field it took away."""
    cls, args, _, _ = _render("sft_demonstrations", PARAMS[:1])
    changed = args.replace("if not 0.0 <= self.margin < math.inf:",
                           "if not 0.0 <= self.margin < 10.0:")
    view = _views(PARAMS[:1])[0]
    result = remove_param(changed, view, class_name=cls, path="a.py")
    assert result.status == "failed"
    assert "still reads self.margin" in result.reason


def test_the_line_edits_need_their_anchor():
    with pytest.raises(EditFailure, match="no top-level `train:` block"):
        add_train_key("model:\n  a: 1\n", "margin", "0.1")
    with pytest.raises(EditFailure, match="no parameter table"):
        add_doc_row("## x\n\nno table\n", "margin", "| `margin` | `0.1` | x |")


def test_a_train_key_goes_after_the_last_key_and_leaves_comments_and_nesting():
    config = "train:\n  a: 1\n  b:\n    - 2\n# note\n\nscheduler:\n  c: 3\n"
    added = add_train_key(config, "margin", "0.1")
    assert added == "train:\n  a: 1\n  b:\n    - 2\n  margin: 0.1\n# note\n\nscheduler:\n  c: 3\n"
    assert remove_train_key(added, "margin") == config
    assert remove_train_key(config, "b") == "train:\n  a: 1\n# note\n\nscheduler:\n  c: 3\n"
