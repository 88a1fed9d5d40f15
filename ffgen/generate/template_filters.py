"""The Jinja filters ffgen's templates use, for :mod:`ffgen.generate.template_runtime`.

Jinja's compiler passes a filter its context, evaluation context or environment first when
Jinja's own filter of that name asks for one; the compiled templates call these exactly so. Each
function here takes the same first argument as Jinja's filter of its name and gives the same
result for autoescape off (the only mode ffgen renders in). ``TAKES`` says which first argument a
filter takes, for ``map`` calling a filter by name.
"""

from __future__ import annotations

import json

from ffgen.generate import template_runtime as rt

# Jinja's default json policies: sorted keys; <, >, & and ' as \u escapes (HTML-safe).
_JSON_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027"))


def _text(value):
    return value if isinstance(value, str) else str(value)


def upper(value):
    return _text(value).upper()


def capitalize(value):
    return _text(value).capitalize()


def join(eval_ctx, value, d="", attribute=None):
    if attribute is not None:
        value = map(_item_getter(eval_ctx.environment, attribute), value)
    if eval_ctx.autoescape:
        return rt.Markup(d).join(value)
    return str(d).join(map(str, value))


def to_list(eval_ctx, value):
    return list(value)


def first(environment, seq):
    for item in seq:
        return item
    return environment.undefined("No first item, sequence was empty.")


def sort(environment, value, reverse=False, case_sensitive=False, attribute=None):
    fold = None if case_sensitive else _fold_case
    getters = [_item_getter(environment, part, fold) for part in _attribute_list(attribute)]
    return sorted(value, key=lambda item: [get(item) for get in getters], reverse=reverse)


def to_json(eval_ctx, value, indent=None):
    options = {"sort_keys": True} if indent is None else {"sort_keys": True, "indent": indent}
    text = json.dumps(value, **options)
    for char, escaped in _JSON_ESCAPES:
        text = text.replace(char, escaped)
    return rt.Markup(text)


def map_items(context, value, *args, **kwargs):
    # A generator, as Jinja's: the items are mapped as the next filter reads them.
    if value:
        func = _mapper(context, args, kwargs)
        for item in value:
            yield func(item)


def _mapper(context, args, kwargs):
    if not args and "attribute" in kwargs:
        attribute = kwargs.pop("attribute")
        default = kwargs.pop("default", None)
        if kwargs:
            raise rt.TemplateRuntimeError(f"Unexpected keyword argument {next(iter(kwargs))!r}")
        return _item_getter(context.environment, attribute, default=default)
    if not args:
        raise rt.TemplateRuntimeError("map requires a filter argument")
    name, rest = args[0], args[1:]
    return lambda item: call_filter(context, name, item, rest, kwargs)


def call_filter(context, name, value, args=(), kwargs=None):
    """Call the filter ``name`` as a template would, with the first argument it takes."""
    func = context.environment.filters.get(name)
    if func is None:
        raise rt.TemplateRuntimeError(f"No filter named {name!r}.")
    first_arg = {
        "context": context,
        "eval_context": context.eval_ctx,
        "environment": context.environment,
    }.get(TAKES.get(func))
    head = (value,) if first_arg is None else (first_arg, value)
    return func(*head, *args, **(kwargs or {}))


def _fold_case(value):
    return value.lower() if isinstance(value, str) else value


def _attribute_list(attribute):
    return attribute.split(",") if isinstance(attribute, str) else [attribute]


def _item_getter(environment, attribute, fold=None, default=None):
    """``item.a.b`` for ``attribute`` "a.b" (digits index), looked up as a template does."""
    parts = _path(attribute)

    def get(item):
        for part in parts:
            item = environment.getitem(item, part)
            if default is not None and isinstance(item, rt.Undefined):
                item = default
        return item if fold is None else fold(item)

    return get


def _path(attribute):
    if attribute is None:
        return []
    if isinstance(attribute, str):
        return [int(part) if part.isdigit() else part for part in attribute.split(".")]
    return [attribute]


FILTERS = {
    "capitalize": capitalize,
    "first": first,
    "join": join,
    "length": len,
    "list": to_list,
    "map": map_items,
    "sort": sort,
    "tojson": to_json,
    "upper": upper,
}
# The first argument each filter takes (none: the value comes first).
TAKES = {
    join: "eval_context",
    to_list: "eval_context",
    to_json: "eval_context",
    first: "environment",
    sort: "environment",
    map_items: "context",
}
