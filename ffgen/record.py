"""Frozen value records made cheaply: the part of ``@dataclass(frozen=True)`` ffgen uses.

A short command spends most of its time starting up. Importing :mod:`dataclasses` costs about
9 ms (it brings :mod:`inspect`) and creating each dataclass about half a millisecond more (six
generated methods, and a signature for a class without a docstring): for the two dozen records
``verify`` reads a checkout with, that was a fifth of its budget over its floor. ``@record``
reads the same class body (annotated fields, defaults, ``factory(...)`` for a default made per
instance, ``__post_init__``) and makes ``__init__``, ``__repr__``, ``__eq__``/``__hash__`` (by
value, or by identity with ``eq=False``) and frozen attributes with one small ``exec``, on the
class's first use.

Only what the records here need: no ``order``, ``kw_only``, ``InitVar`` or ``slots``; fields are
those of the class and of ``@record`` bases, in order; an annotation naming ``ClassVar`` is not
a field.
"""

from __future__ import annotations

_FIELDS = "__record_fields__"


class factory:  # noqa: N801 - used like dataclasses' field(default_factory=...)
    """A default made anew for each instance: ``bindings: dict = factory(dict)``."""

    __slots__ = ("make",)

    def __init__(self, make) -> None:
        self.make = make


def record(cls=None, /, *, eq: bool = True):
    """``@record`` or ``@record(eq=False)`` on a class with annotated fields."""

    def wrap(c: type) -> type:
        return _build(c, eq)

    return wrap if cls is None else wrap(cls)


def fields_of(obj) -> tuple[str, ...]:
    """The field names of a record (class or instance), in order."""
    return getattr(obj, _FIELDS)


def replace(obj, **changes):
    """A copy of the record ``obj`` with ``changes`` (like :func:`dataclasses.replace`)."""
    unknown = set(changes) - set(fields_of(obj))
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field(s) {', '.join(sorted(unknown))}")
    return type(obj)(**{n: changes.get(n, getattr(obj, n)) for n in fields_of(obj)})


def _build(cls: type, eq: bool) -> type:
    defaults = {}
    for base in reversed(cls.__mro__[1:]):
        defaults.update({n: base.__dict__.get(n, _NO) for n in getattr(base, _FIELDS, ())})
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if "ClassVar" not in str(annotation):
            defaults[name] = cls.__dict__.get(name, _NO)
    names = tuple(defaults)
    methods = ("__init__", "__repr__", *(("__eq__", "__hash__") if eq else ()))
    made: dict[str, object] = {}

    def make() -> dict[str, object]:
        """Compile the class's methods, once, on the first call of any: most records a command
        imports are never made, and compiling them all would cost more than the rest."""
        if not made:
            scope = {"_set": object.__setattr__, "_NO": _NO}
            exec(_source(cls, names, defaults, scope), scope)  # noqa: S102 - our own template
            made.update((name, scope[name]) for name in methods)
            for name in methods:
                setattr(cls, name, scope[name])
        return made

    for name in methods:
        setattr(cls, name, _stub(name, make))
    cls.__setattr__ = _frozen_set
    cls.__delattr__ = _frozen_del
    setattr(cls, _FIELDS, names)
    cls.__match_args__ = names
    return cls


def _stub(name: str, make):
    def stub(self, *args, **kwargs):
        return make()[name](self, *args, **kwargs)

    stub.__name__ = name
    return stub


def _source(cls: type, names: tuple[str, ...], defaults: dict, scope: dict) -> str:
    params, body = [], []
    for name in names:
        default = defaults[name]
        if isinstance(default, factory):
            scope[f"_f_{name}"] = default.make
            params.append(f"{name}=_NO")
            body.append(f"    _set(self, {name!r}, _f_{name}() if {name} is _NO else {name})")
        else:
            if default is not _NO:
                scope[f"_d_{name}"] = default
            params.append(name if default is _NO else f"{name}=_d_{name}")
            body.append(f"    _set(self, {name!r}, {name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    values = "".join(f"self.{n}, " for n in names)
    others = "".join(f"other.{n}, " for n in names)
    shown = ", ".join(f"{n}={{self.{n}!r}}" for n in names)
    return "\n".join([
        f"def __init__(self, {', '.join(params)}):" if params else "def __init__(self):",
        *(body or ["    pass"]),
        "def __repr__(self):",
        f"    return f'{{type(self).__qualname__}}({shown})'",
        "def __eq__(self, other):",
        "    if other.__class__ is not self.__class__:",
        "        return NotImplemented",
        f"    return ({values}) == ({others})",
        "def __hash__(self):",
        f"    return hash(({values}))",
    ])


class _Missing:
    def __repr__(self) -> str:
        return "<no default>"


_NO = _Missing()


def _frozen_set(self, name: str, value) -> None:
    raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")


def _frozen_del(self, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")
