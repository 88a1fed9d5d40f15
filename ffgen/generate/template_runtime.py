"""What ffgen's templates, compiled ahead of time by Jinja, need to run, without Jinja.

``python -m ffgen.generate.render --write`` compiles the templates with Jinja 3.1 and points each
compiled module's one import line here instead of at ``jinja2.runtime``: importing Jinja (and
building its environment) would cost a command more than rendering does. This module holds the
names that line imports, with the semantics Jinja's own have for what the templates do,
autoescape off: StrictUndefined (an undefined value raises ``UndefinedError`` naming it when
used), loops with look-ahead, macros. The ``environment`` a compiled module calls into is
:class:`ffgen.generate.template_env.CompiledTemplates`; the filters are in
:mod:`ffgen.generate.template_filters`. ``tests/core/test_template_runtime.py`` holds the output
to Jinja's, byte for byte.
"""

from __future__ import annotations


class _Missing:
    def __repr__(self) -> str:
        return "missing"


missing = _Missing()  # "no value": a context without the name, an argument not passed


class TemplateError(Exception):
    pass


class TemplateRuntimeError(TemplateError):
    pass


class UndefinedError(TemplateRuntimeError):
    pass


class TemplateNotFound(LookupError, TemplateError):
    def __init__(self, name) -> None:
        super().__init__(name)
        self.name = name


def identity(value):
    return value


def internalcode(func):
    return func


def str_join(items) -> str:
    return "".join(map(str, items))


# -- markup (only reachable with autoescape on, which ffgen never renders with) -----------------

_HTML = (("&", "&amp;"), (">", "&gt;"), ("<", "&lt;"), ("'", "&#39;"), ('"', "&#34;"))


class Markup(str):
    """Text safe for HTML: what joins or is added to it is escaped first."""

    __slots__ = ()

    def __html__(self):
        return self

    def __add__(self, other):
        if isinstance(other, str) or hasattr(other, "__html__"):
            return Markup(str.__add__(self, escape(other)))
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, str) or hasattr(other, "__html__"):
            return escape(other) + self
        return NotImplemented

    def join(self, items):
        return Markup(str.join(self, map(escape, items)))


def escape(value) -> Markup:
    if hasattr(value, "__html__"):
        return Markup(value.__html__())
    text = str(value)
    for char, entity in _HTML:
        text = text.replace(char, entity)
    return Markup(text)


def markup_join(items) -> str:
    texts = [value if isinstance(value, str) else str(value) for value in items]
    if any(hasattr(text, "__html__") for text in texts):
        return Markup("").join(texts)
    return "".join(texts)


# -- undefined values ---------------------------------------------------------------------------


def _type_words(obj) -> str:
    if obj is None or obj is Ellipsis:
        return repr(obj)
    kind = type(obj)
    if kind.__module__ == "builtins":
        return f"{kind.__name__} object"
    return f"{kind.__module__}.{kind.__name__} object"


class Undefined:
    """A value a template asked for and did not get. This lenient form (the compiled code's
    ``if`` without ``else``) reads as "", false, empty; anything else raises."""

    __slots__ = ("_undefined_hint", "_undefined_obj", "_undefined_name", "_undefined_exception")

    def __init__(self, hint=None, obj=missing, name=None, exc=UndefinedError) -> None:
        self._undefined_hint = hint
        self._undefined_obj = obj
        self._undefined_name = name
        self._undefined_exception = exc

    @property
    def _undefined_message(self) -> str:
        if self._undefined_hint:
            return self._undefined_hint
        name, obj = self._undefined_name, self._undefined_obj
        if obj is missing:
            return f"{name!r} is undefined"
        if not isinstance(name, str):
            return f"{_type_words(obj)} has no element {name!r}"
        return f"{_type_words(obj)!r} has no attribute {name!r}"

    def _fail_with_undefined_error(self, *args, **kwargs):
        raise self._undefined_exception(self._undefined_message)

    def __getattr__(self, name):
        if name[:2] == "__":
            raise AttributeError(name)
        return self._fail_with_undefined_error()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail_with_undefined_error
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _fail_with_undefined_error
    __mod__ = __rmod__ = __pow__ = __rpow__ = __pos__ = __neg__ = _fail_with_undefined_error
    __lt__ = __le__ = __gt__ = __ge__ = __call__ = __getitem__ = _fail_with_undefined_error
    __int__ = __float__ = __complex__ = _fail_with_undefined_error

    def __eq__(self, other):
        return type(self) is type(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(type(self))

    def __str__(self):
        return ""

    def __len__(self):
        return 0

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __repr__(self):
        return "Undefined"


class StrictUndefined(Undefined):
    """The undefined value of ffgen's templates: any use but ``is defined`` raises."""

    __slots__ = ()
    __iter__ = __str__ = __len__ = Undefined._fail_with_undefined_error
    __eq__ = __ne__ = __bool__ = __hash__ = Undefined._fail_with_undefined_error
    __contains__ = Undefined._fail_with_undefined_error


# -- what templates build: namespaces, loops, macros ----------------------------------------------


class Namespace:
    """``namespace(...)``: attributes a ``{% set ns.name = ... %}`` can change inside a loop."""

    def __init__(self, *args, **kwargs) -> None:
        self._attrs = dict(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return self._attrs[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setitem__(self, name, value) -> None:
        self._attrs[name] = value

    def __repr__(self) -> str:
        return f"<Namespace {self._attrs!r}>"


class TemplateReference:
    """``self`` in a template (ffgen's templates define no blocks to reach through it)."""

    def __init__(self, context) -> None:
        self._context = context

    def __getitem__(self, name):
        raise TemplateRuntimeError(f"block {name!r}: blocks are not supported by ffgen's runtime")


class LoopContext:
    """``loop`` in a ``{% for %}``: iterating gives (item, loop); ``last`` and ``nextitem`` look
    one item ahead, ``length`` counts what is left only when asked. (No ``recursive`` loops:
    ffgen's templates have none, and calling ``loop`` raises ``TypeError``.)"""

    def __init__(self, iterable, undefined, recurse=None, depth0=0) -> None:
        self._iterable = iterable
        self._iterator = iter(iterable)
        self._undefined = undefined
        self._length = None
        self._ahead = missing  # the next item once looked at
        self._before = self._current = missing
        self._changed = missing
        self.index0 = -1
        self.depth0 = depth0

    def __iter__(self):
        return self

    def __next__(self):
        if self._ahead is not missing:
            item, self._ahead = self._ahead, missing
        else:
            item = next(self._iterator)
        self.index0 += 1
        self._before, self._current = self._current, item
        return item, self

    def _peek(self):
        if self._ahead is missing:
            self._ahead = next(self._iterator, missing)
        return self._ahead

    index = property(lambda self: self.index0 + 1)
    depth = property(lambda self: self.depth0 + 1)
    first = property(lambda self: self.index0 == 0)
    last = property(lambda self: self._peek() is missing)
    revindex = property(lambda self: self.length - self.index0)
    revindex0 = property(lambda self: self.length - self.index)

    @property
    def length(self) -> int:
        if self._length is None:
            try:
                self._length = len(self._iterable)
            except TypeError:
                rest = list(self._iterator)
                self._iterator = iter(rest)
                self._length = len(rest) + self.index + (self._ahead is not missing)
        return self._length

    @property
    def previtem(self):
        return self._undefined("there is no previous item") if self.first else self._before

    @property
    def nextitem(self):
        item = self._peek()
        return self._undefined("there is no next item") if item is missing else item

    def cycle(self, *args):
        if not args:
            raise TypeError("no items for cycling given")
        return args[self.index0 % len(args)]

    def changed(self, *value) -> bool:
        if self._changed != value:
            self._changed = value
            return True
        return False


class Macro:
    """A ``{% macro %}``: binds a call's arguments to the compiled function's parameters."""

    def __init__(self, environment, func, name, arguments, catch_kwargs, catch_varargs, caller,
                 default_autoescape=False) -> None:
        self._environment = environment
        self._func = func
        self.name = name
        self.arguments = tuple(arguments)
        self.catch_kwargs = catch_kwargs
        self.catch_varargs = catch_varargs
        self.caller = caller
        self._autoescape = default_autoescape

    def __call__(self, *args, **kwargs):
        count = len(self.arguments)
        bound = list(args[:count])
        named_caller = "caller" in self.arguments[len(bound):] or (
            len(bound) == count and "caller" in self.arguments)
        bound += [kwargs.pop(name, missing) for name in self.arguments[len(bound):]]
        if self.caller and not named_caller:
            caller = kwargs.pop("caller", None)
            if caller is None:
                caller = self._environment.undefined("No caller defined", name="caller")
            bound.append(caller)
        if self.catch_kwargs:
            bound.append(kwargs)
        elif kwargs:
            raise TypeError(f"macro {self.name!r} takes no keyword argument {next(iter(kwargs))!r}")
        if self.catch_varargs:
            bound.append(args[count:])
        elif len(args) > count:
            raise TypeError(f"macro {self.name!r} takes not more than {count} argument(s)")
        text = self._func(*bound)
        return Markup(text) if self._autoescape else text

    def __repr__(self) -> str:
        return f"<Macro {self.name!r}>"
