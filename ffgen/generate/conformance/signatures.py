"""Signatures read from ``def``s, and whether a call or an override fits one."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

POSONLY, POSITIONAL, VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD = (
    "posonly",
    "positional",
    "var_positional",
    "keyword_only",
    "var_keyword",
)


@dataclasses.dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a signature, as the checkout declares it."""
    name: str
    kind: str
    default: str | None = None  # source text of the default; None: required (or * / **)
    # The annotation as written, and the module it is written in (where its names resolve).
    annotation: ast.expr | None = dataclasses.field(default=None, compare=False, repr=False)
    scope: str | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def required(self) -> bool:
        return self.default is None and self.kind in (POSONLY, POSITIONAL, KEYWORD_ONLY)


@dataclasses.dataclass(frozen=True, slots=True)
class Signature:
    """A function's parameters, in order, as the checkout declares them."""
    name: str
    params: tuple[Param, ...]

    def text(self) -> str:
        parts: list[str] = []
        for i, p in enumerate(self.params):
            if p.kind == KEYWORD_ONLY and not any(q.kind == VAR_POSITIONAL for q in self.params):
                if not any(q.kind == KEYWORD_ONLY for q in self.params[:i]):
                    parts.append("*")
            parts.append(_param_text(p))
            is_last_posonly = p.kind == POSONLY and (
                i + 1 == len(self.params) or self.params[i + 1].kind != POSONLY
            )
            if is_last_posonly:
                parts.append("/")
        return f"{self.name}({', '.join(parts)})"

    def without_first(self) -> Signature:
        """The signature as seen through a bound method (``self``/``cls`` already passed)."""
        if self.params and self.params[0].kind in (POSONLY, POSITIONAL):
            return Signature(self.name, self.params[1:])
        return self

    @property
    def positional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind in (POSONLY, POSITIONAL))

    def has(self, kind: str) -> bool:
        return any(p.kind == kind for p in self.params)

    def by_name(self, name: str) -> Param | None:
        """The parameter a keyword argument ``name`` binds to (positional-only ones cannot)."""
        for p in self.params:
            if p.name == name and p.kind in (POSITIONAL, KEYWORD_ONLY):
                return p
        return None


def _param_text(p: Param) -> str:
    prefix = {VAR_POSITIONAL: "*", VAR_KEYWORD: "**"}.get(p.kind, "")
    return f"{prefix}{p.name}" + (f"={p.default}" if p.default is not None else "")


def signature_of(name: str, args: ast.arguments, scope: str | None = None) -> Signature:
    params: list[Param] = []

    def add(arg: ast.arg, kind: str, default: ast.expr | None = None) -> None:
        params.append(Param(arg.arg, kind, _default_text(default), arg.annotation, scope))

    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        add(arg, POSONLY if i < len(args.posonlyargs) else POSITIONAL, default)
    if args.vararg:
        add(args.vararg, VAR_POSITIONAL)
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        add(arg, KEYWORD_ONLY, default)
    if args.kwarg:
        add(args.kwarg, VAR_KEYWORD)
    return Signature(name, tuple(params))


def _default_text(node: ast.expr | None) -> str | None:
    return None if node is None else ast.unparse(node)


def call_problem(sig: Signature, call: ast.Call) -> str | None:
    """Why ``call`` cannot bind to ``sig`` (already bound), or None. ``*x``/``**x`` splats hide
    what they pass, so only what the explicit arguments show is checked."""
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    splat = any(k.arg is None for k in call.keywords)
    n_pos = sum(not isinstance(a, ast.Starred) for a in call.args)
    positional = sig.positional
    if not sig.has(VAR_POSITIONAL) and n_pos > len(positional):
        return f"takes {_count(len(positional))}, got {n_pos}"
    named = [k.arg for k in call.keywords if k.arg is not None]
    for name in named:
        problem = _keyword_problem(sig, name, positional[:n_pos])
        if problem:
            return problem
    if splat:  # ``**x`` may supply any named parameter
        return None
    given = set(named)
    missing = [p for p in sig.params if p.kind == KEYWORD_ONLY and p.required]
    if not starred:  # ``*x`` may supply any positional one
        missing = [p for p in positional[n_pos:] if p.required] + missing
    missing = [p for p in missing if p.kind == POSONLY or p.name not in given]
    if missing:
        return f"is called without its required `{missing[0].name}`"
    return None


def _keyword_problem(sig: Signature, name: str, filled: tuple[Param, ...]) -> str | None:
    target = sig.by_name(name)
    if target is None:
        if sig.has(VAR_KEYWORD):
            return None
        if any(p.name == name for p in sig.params if p.kind == POSONLY):
            return f"takes `{name}` only positionally"
        return f"takes no `{name}`"
    if target in filled:
        return f"gets `{name}` twice (positionally and by keyword)"
    return None


def _count(n: int) -> str:
    return f"{n} positional argument{'' if n == 1 else 's'}"


def override_problem(base: Signature, over: Signature) -> str | None:
    """Why ``over`` cannot take the calls the framework makes to ``base`` (both bound), or None.

    A base parameter counts as kept when the override takes it at the same position under the
    same name, by name (a keyword-only parameter or ``**kwargs``), or through ``*args, **kwargs``.
    """
    over_pos = over.positional
    catch_all = over.has(VAR_POSITIONAL) and over.has(VAR_KEYWORD)
    for i, p in enumerate(base.positional):
        mine = over_pos[i] if i < len(over_pos) else None
        if mine is not None and (mine.name == p.name or p.kind == POSONLY):
            if p.kind == POSITIONAL and mine.kind == POSONLY:
                return f"taking `{p.name}` only positionally"
            if mine.required and not p.required:
                return f"with `{p.name}` required, which is optional there"
            continue
        if catch_all:
            continue
        if any(q.name == p.name for q in over_pos):
            return f"with `{p.name}` at another position"
        if over.by_name(p.name) is None and not over.has(VAR_KEYWORD):
            return f"without its `{p.name}` parameter"
    # A base's ``*args``/``**kwargs`` promise nothing (``optimize(self, *args, **kwargs)`` is a
    # placeholder each algorithm narrows), so only its named parameters must be kept.
    for p in base.params:
        if p.kind == KEYWORD_ONLY and over.by_name(p.name) is None and not over.has(VAR_KEYWORD):
            return f"without its `{p.name}` parameter"
    return _extra_required(base, over)


def _extra_required(base: Signature, over: Signature) -> str | None:
    """An override parameter the framework never passes must have a default."""
    base_names = {p.name for p in base.params}
    for i, p in enumerate(over.positional):
        beyond = i >= len(base.positional) and not base.has(VAR_POSITIONAL)
        if p.required and beyond and p.name not in base_names:
            return f"with `{p.name}` required, which the framework does not pass"
    for p in over.params:
        if p.kind == KEYWORD_ONLY and p.required and p.name not in base_names:
            if not base.has(VAR_KEYWORD):
                return f"with `{p.name}` required, which the framework does not pass"
    return None


def bind(sig: Signature, call: ast.Call) -> Iterator[tuple[Param, ast.expr]]:
    """Each explicit argument with the parameter it binds to (as far as the call shows)."""
    positional = sig.positional
    star = next((p for p in sig.params if p.kind == VAR_POSITIONAL), None)
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break  # what follows binds wherever the splat ends
        param = positional[i] if i < len(positional) else star
        if param is not None:
            yield param, arg
    extra = next((p for p in sig.params if p.kind == VAR_KEYWORD), None)
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        param = sig.by_name(keyword.arg) or extra
        if param is not None:
            yield param, keyword.value
