"""Frozen value records made cheaply: the part of ``@dataclass(frozen=True)`` ffgen uses.

A short command spends most of its time starting up. Importing :mod:`dataclasses` costs about
9 ms (it brings :mod:`inspect`) and creating each dataclass about half a millisecond more (six
generated methods, and a signature for a class without a docstring): for the two dozen records
``verify`` reads a checkout with, that was a fifth of its budget over its floor. ``@record``
reads the same class body (annotated fields, defaults, ``factory(...)`` for a default made per
instance, ``__post_init__``) and makes ``__init__`` (one small ``exec``, on the class's first
instance), ``__repr__``, ``__eq__``/``__hash__`` (by value, or by identity with ``eq=False``) and
frozen attributes.

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


def record(cls=None, /, *, eq: bool = True, internal: tuple[str, ...] = ()):
    """``@record``, ``@record(eq=False)`` or ``@record(internal=(...))`` on a class with
    annotated fields. ``internal`` fields are left out of ``==``, the hash and the repr (as
    ``field(compare=False, repr=False)``): syntax nodes a value only carries along."""

    def wrap(c: type) -> type:
        return _build(c, eq, internal)

    return wrap if cls is None else wrap(cls)


def fields_of(obj) -> tuple[str, ...]:
    """The field names of a record (class or instance), in order."""
    return getattr(obj, _FIELDS)


def replace(obj, **changes):
    """A copy of the record ``obj`` with ``changes`` (like :func:`dataclasses.replace`, which
    it hands a dataclass to: one ``replace`` serves both kinds)."""
    if not hasattr(obj, _FIELDS):
        import dataclasses

        return dataclasses.replace(obj, **changes)
    unknown = set(changes) - set(fields_of(obj))
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field(s) {', '.join(sorted(unknown))}")
    return type(obj)(**{n: changes.get(n, getattr(obj, n)) for n in fields_of(obj)})


def _build(cls: type, eq: bool, internal: tuple[str, ...]) -> type:
    defaults = {}
    for base in reversed(cls.__mro__[1:]):
        defaults.update({n: base.__dict__.get(n, _NO) for n in getattr(base, _FIELDS, ())})
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if "ClassVar" not in str(annotation):
            defaults[name] = cls.__dict__.get(name, _NO)
    names = tuple(defaults)
    unknown = set(internal) - set(names)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field(s) {', '.join(sorted(unknown))}")
    cls.__init__ = _lazy_init(cls, names, defaults)
    cls.__repr__, eq_hash = _generic_methods(tuple(n for n in names if n not in internal))
    if eq:
        cls.__eq__, cls.__hash__ = eq_hash
    cls.__setattr__ = _frozen_set
    cls.__delattr__ = _frozen_del
    setattr(cls, _FIELDS, names)
    cls.__match_args__ = names
    return cls


def _lazy_init(cls: type, names: tuple[str, ...], defaults: dict):
    """A stand-in ``__init__`` that compiles the real one on the class's first instance and
    puts it in its place: most records a command imports are never made, and compiling every
    one at import cost more than all the rest of importing them."""

    def __init__(self, *args, **kwargs):
        scope = {"_set": object.__setattr__, "_NO": _NO}
        exec(_init_source(cls, names, defaults, scope), scope)  # noqa: S102 - our own template
        cls.__init__ = scope["__init__"]
        scope["__init__"](self, *args, **kwargs)

    return __init__


def _generic_methods(names: tuple[str, ...]):
    """``__repr__``, and ``__eq__``/``__hash__`` by the fields' values: shared code, no compile."""
    def values(obj) -> tuple:
        return tuple(getattr(obj, n) for n in names)

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return values(self) == values(other)

    def __hash__(self) -> int:
        return hash(values(self))

    return __repr__, (__eq__, __hash__)


def _init_source(cls: type, names: tuple[str, ...], defaults: dict, scope: dict) -> str:
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
    head = f"def __init__(self, {', '.join(params)}):" if params else "def __init__(self):"
    return "\n".join([head, *(body or ["    pass"])])


class _Missing:
    def __repr__(self) -> str:
        return "<no default>"


_NO = _Missing()


def _frozen_set(self, name: str, value) -> None:
    raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")


def _frozen_del(self, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")
