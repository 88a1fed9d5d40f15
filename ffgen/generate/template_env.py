"""The ``environment`` of ffgen's compiled templates: contexts, templates, imports, includes.

Each module ``python -m ffgen.generate.render --write`` compiled looks up the global
``environment`` when it renders; :class:`CompiledTemplates` loads the module and sets it to
itself, as Jinja's loader sets its own. What a render sees is what Jinja's would: the variables
given (over the globals ``range``, ``dict`` and ``namespace``), what the template sets, and for
an include or an ``import ... with context`` the including template's variables.
"""

from __future__ import annotations

import importlib.util
from hashlib import sha1
from pathlib import Path

from ffgen.generate.template_runtime import (
    Namespace,
    StrictUndefined,
    TemplateNotFound,
    Undefined,
    UndefinedError,
    missing,
)


class _EvalContext:
    def __init__(self, environment) -> None:
        self.environment = environment
        self.autoescape = False
        self.volatile = False


class Context:
    """The variables of one render: ``parent`` (given) under ``vars`` (set by the template)."""

    def __init__(self, environment, parent, name, blocks) -> None:
        self.environment = environment
        self.parent = parent
        self.name = name
        self.vars = {}
        self.exported_vars = set()
        self.eval_ctx = _EvalContext(environment)
        self.blocks = {key: [block] for key, block in blocks.items()}

    def resolve_or_missing(self, key):
        if key in self.vars:
            return self.vars[key]
        return self.parent.get(key, missing)

    def resolve(self, key):
        value = self.resolve_or_missing(key)
        return self.environment.undefined(name=key) if value is missing else value

    def get_all(self) -> dict:
        if not self.vars:
            return self.parent
        if not self.parent:
            return self.vars
        return {**self.parent, **self.vars}

    def get_exported(self) -> dict:
        return {key: self.vars[key] for key in self.exported_vars}

    def call(self, func, *args, **kwargs):
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        try:
            return func(*args, **kwargs)
        except StopIteration:
            return self.environment.undefined(
                "value was undefined because a callable raised a StopIteration exception")

    def derived(self, locals=None):
        return _new_context(self.environment, self.name, {}, self.get_all(), True, locals)

    def __contains__(self, key) -> bool:
        return key in self.vars or key in self.parent

    def __getitem__(self, key):
        value = self.resolve_or_missing(key)
        if value is missing:
            raise KeyError(key)
        return value


def _new_context(environment, name, blocks, variables, shared, locals=None, globals=None):
    # shared: the caller's variables as they are (an include, an import "with context")
    parent = variables if shared else {**(globals or {}), **variables}
    if locals:
        parent = {**parent, **{k: v for k, v in locals.items() if v is not missing}}
    return Context(environment, parent, name, blocks)


class TemplateModule:
    """An imported template: its exported names as attributes, its output as ``str()``."""

    def __init__(self, template, context) -> None:
        self._body_stream = list(template.root_render_func(context))
        self.__dict__.update(context.get_exported())
        self.__name__ = template.name

    def __str__(self) -> str:
        return "".join(self._body_stream)

    def __repr__(self) -> str:
        return f"<TemplateModule {self.__name__!r}>"


class Template:
    """One compiled template module, bound to its :class:`CompiledTemplates`."""

    def __init__(self, environment, namespace) -> None:
        self.environment = environment
        self.name = namespace["name"]
        self.blocks = namespace["blocks"]
        self.root_render_func = namespace["root"]
        self._module = None

    def new_context(self, vars=None, shared=False, locals=None) -> Context:
        variables = {} if vars is None else vars
        return _new_context(self.environment, self.name, self.blocks, variables, shared,
                            locals, self.environment.globals)

    def render(self, *args, **kwargs) -> str:
        context = self.new_context(dict(*args, **kwargs))
        return self.environment.concat(self.root_render_func(context))

    def make_module(self, vars=None, shared=False, locals=None) -> TemplateModule:
        return TemplateModule(self, self.new_context(vars, shared, locals))

    def _get_default_module(self, context=None) -> TemplateModule:
        # ``{% import %}`` without context: the template's module over the globals, made once
        # (every template here has the same globals, so no context needs a module of its own)
        if self._module is None:
            self._module = self.make_module()
        return self._module

    @property
    def module(self) -> TemplateModule:
        return self._get_default_module()


class CompiledTemplates:
    """The ``environment`` of the compiled templates in one folder (``tmpl_<sha1 of name>.py``,
    Jinja's module names): loads each template once, as a module object of its own."""

    undefined = StrictUndefined

    def __init__(self, folder: Path) -> None:
        from ffgen.generate.template_filters import FILTERS

        self.folder = Path(folder)
        self.filters = dict(FILTERS)
        self.tests = {"defined": _defined, "undefined": _undefined}
        self.globals = {"range": range, "dict": dict, "namespace": Namespace}
        self._templates: dict[str, Template] = {}

    @staticmethod
    def concat(parts) -> str:
        return "".join(parts)

    def get_template(self, name, parent=None, globals=None) -> Template:
        if isinstance(name, Template):
            return name
        template = self._templates.get(name)  # hashing an undefined name raises, as it should
        if template is None:
            template = self._templates[name] = self._load(name)
        return template

    def select_template(self, names, parent=None, globals=None) -> Template:
        """The first of ``names`` there is (``{% include [a, b] %}``)."""
        if isinstance(names, Undefined):
            names._fail_with_undefined_error()
        for name in names:
            try:
                return self.get_template(name)
            except (TemplateNotFound, UndefinedError):
                continue
        tried = ", ".join(map(str, names))
        raise TemplateNotFound(f"none of the templates given were found: {tried}")

    def get_or_select_template(self, names, parent=None, globals=None) -> Template:
        if isinstance(names, (str, Undefined, Template)):
            return self.get_template(names)
        return self.select_template(names)

    def _load(self, name) -> Template:
        key = f"tmpl_{sha1(name.encode('utf-8')).hexdigest()}"
        path = self.folder / f"{key}.py"
        if not path.is_file():
            raise TemplateNotFound(name)
        # A module object of this environment's own (never in sys.modules): its ``environment``
        # is this one. The source loader reads the cached bytecode as an import does.
        spec = importlib.util.spec_from_file_location(f"ffgen_compiled_template.{key}", path)
        module = importlib.util.module_from_spec(spec)
        module.environment = self
        spec.loader.exec_module(module)
        return Template(self, vars(module))

    def getattr(self, obj, attribute):
        try:
            return getattr(obj, attribute)
        except AttributeError:
            pass
        try:
            return obj[attribute]
        except (TypeError, LookupError, AttributeError):
            return self.undefined(obj=obj, name=attribute)

    def getitem(self, obj, argument):
        try:
            return obj[argument]
        except (AttributeError, TypeError, LookupError):
            if isinstance(argument, str):
                try:
                    return getattr(obj, argument)
                except AttributeError:
                    pass
            return self.undefined(obj=obj, name=argument)


def _defined(value) -> bool:
    return not isinstance(value, Undefined)


def _undefined(value) -> bool:
    return isinstance(value, Undefined)
