"""What the rules reason about: registered algorithms and their resolved classes and declarations.

Built once per run from a :class:`CheckoutIndex`; every helper answers one question by following
inheritance (a class that declares nothing inherits its base's value).
"""

from __future__ import annotations

import ast
import dataclasses
from functools import cached_property

from ffgen.checkout import layout
from ffgen.errors import UsageError
from ffgen.verify.catalogue import CONTRACT_CONSTANTS, OPTIMIZER_KINDS
from ffgen.verify.index import Assignment, CheckoutIndex, ClassInfo, ModuleInfo, walk

ARGS_REGISTRY_MODULE = "flow_factory.hparams.training_args._registry"
TRAINER_REGISTRY_MODULE = "flow_factory.trainers.registry"
ARGS_INIT_MODULE = "flow_factory.hparams.training_args"
HPARAMS_INIT_MODULE = "flow_factory.hparams"
ARGS_REGISTRY_NAME = layout.ARGS_REGISTRY_NAME
TRAINER_REGISTRY_NAME = layout.TRAINER_REGISTRY_NAME
BASE_TRAINER = "BaseTrainer"
BASE_ARGS = "TrainingArguments"
OFFLINE_ARGS = "OfflineFlowMatchingTrainingArguments"
# Where a checkout registers its optimizer kinds (keys of a dict literal), newest layout first.
OPTIMIZER_REGISTRY_MODULES = (
    "flow_factory.hparams.optimizer_args._registry",
    "flow_factory.hparams.optimizer_args",
)
OPTIMIZER_REGISTRY_NAME = "_OPTIMIZER_ARGS_REGISTRY"


@dataclasses.dataclass(frozen=True, slots=True)
class RegistryEntry:
    key: str
    line: int
    value: ast.expr


@dataclasses.dataclass(frozen=True, slots=True)
class Registry:
    path: str
    module: str
    line: int
    entries: tuple[RegistryEntry, ...]
    # key -> the entry Python keeps: asked once per key, a search each time would be quadratic
    last: dict[str, RegistryEntry] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "last", {e.key: e for e in self.entries})

    def keys(self) -> tuple[str, ...]:
        return tuple(e.key for e in self.entries)

    def get(self, key: str) -> RegistryEntry | None:
        """The entry Python keeps: the last one, when a key is written twice (FF108)."""
        return self.last.get(key)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Algorithm:
    key: str
    args_entry: RegistryEntry | None
    trainer_entry: RegistryEntry | None
    args_cls: ClassInfo | None
    trainer_cls: ClassInfo | None


@dataclasses.dataclass(frozen=True, slots=True)
class Declared:
    """A value found by walking a class's MRO: the value, who declared it and where."""

    value: object
    owner: ClassInfo | None
    assign: Assignment | None

    @property
    def line(self) -> int:
        if self.assign is not None:
            return self.assign.line
        return self.owner.line if self.owner else 1


def read_registry(index: CheckoutIndex, module: str, name: str, path: str) -> Registry:
    info = index.module(module)
    if info is None:
        raise UsageError(f"{path} is missing; verify needs both registries of a recent checkout")
    binding = info.bindings.get(name)
    if path in index.syntax_problems:
        return Registry(path, module, 1, ())
    if not isinstance(binding, Assignment) or not isinstance(binding.value, ast.Dict):
        raise UsageError(f"{path} has no `{name} = {{...}}` dict literal; cannot read the registry")
    entries = tuple(
        RegistryEntry(k.value, k.lineno, v)
        for k, v in zip(binding.value.keys, binding.value.values, strict=True)
        if isinstance(k, ast.Constant) and isinstance(k.value, str)
    )
    return Registry(path, module, binding.line, entries)


def class_key(cls: ClassInfo) -> tuple[str, str, int]:
    """A class's identity that outlives its :class:`ClassInfo` (read again after
    :meth:`CheckoutIndex.forget`): where it is defined."""
    return cls.path, cls.name, cls.line


# No slots: its cached properties and lookup tables live in the instance's __dict__.
@dataclasses.dataclass(frozen=True, eq=False)
class Facts:
    """The registered algorithms and how to ask about them. Built whole by
    :func:`build_facts`, or a batch at a time by :func:`ffgen.verify.batches.batches`: then
    ``algorithms`` is the batch, ``keys`` every registered key (another one's algorithm is
    resolved when asked for), ``aliases`` the keys of every args class, and ``seen`` what the
    rules reported once for the whole checkout in earlier batches."""

    index: CheckoutIndex
    args_registry: Registry
    trainer_registry: Registry
    algorithms: tuple[Algorithm, ...]
    keys: tuple[str, ...] | None = None
    aliases: dict[tuple[str, str, int], tuple[str, ...]] | None = None
    seen: dict[str, set] | None = None

    def __post_init__(self) -> None:
        if self.keys is None:
            object.__setattr__(self, "keys", tuple(a.key for a in self.algorithms))
        if self.aliases is None:
            aliases: dict[tuple[str, str, int], tuple[str, ...]] = {}
            for a in self.algorithms:
                if a.args_cls is not None:
                    k = class_key(a.args_cls)
                    aliases[k] = (*aliases.get(k, ()), a.key)
            object.__setattr__(self, "aliases", aliases)
        object.__setattr__(self, "_by_key", {a.key: a for a in self.algorithms})
        object.__setattr__(self, "_registered", frozenset(self.keys))

    def algorithm(self, key: str) -> Algorithm | None:
        found = self._by_key.get(key)
        if found is None and key in self._registered:  # of another batch: resolved now
            found = self._by_key[key] = resolve_algorithm(self.index, key, self.args_registry,
                                                          self.trainer_registry)
        return found

    def resolved(self) -> tuple[Algorithm, ...]:
        """The batch's algorithms and those resolved since for a rule that asked."""
        return tuple(self._by_key.values())

    def seen_set(self, rule: str) -> set:
        """The things ``rule`` reported already, for a rule that reports each shared class once
        for the checkout: fresh per call on whole facts, kept across batches otherwise."""
        return set() if self.seen is None else self.seen.setdefault(rule, set())

    @cached_property
    def examples(self):
        """Every example config, parsed once per run (several rules read them)."""
        from ffgen.verify.examples import load_examples

        return load_examples(self.index.view)

    @cached_property
    def optimizer_kinds(self) -> tuple[str, ...]:
        """The keys of the checkout's optimizer registry (``adamw``, ``muon`` when unreadable)."""
        for module in OPTIMIZER_REGISTRY_MODULES:
            sym = self.index.resolve(module, OPTIMIZER_REGISTRY_NAME)
            value = sym.assign.value if sym is not None and sym.assign is not None else None
            if isinstance(value, ast.Dict):
                keys = tuple(
                    k.value.lower() for k in value.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                )
                if keys:
                    return keys
        return OPTIMIZER_KINDS

    def keys_for_args(self, cls: ClassInfo) -> tuple[str, ...]:
        """Every registry key whose args class is ``cls`` (aliases share one class)."""
        return self.aliases.get(class_key(cls), ())

    # -- declarations ------------------------------------------------------------------------
    def contract(self, cls: ClassInfo) -> Declared:
        """The contract constant's name (or None when not a constant) resolved through the MRO."""
        cache = self.__dict__.setdefault("_contract_cache", {})  # asked per class by most rules
        if id(cls) not in cache:
            cache[id(cls)] = self._contract(cls)
        return cache[id(cls)]

    def _contract(self, cls: ClassInfo) -> Declared:
        found = self.index.lookup(cls, "execution_contract")
        if found is None:
            return Declared(None, None, None)
        owner, assign = found
        name = self.index.constant_name(owner.module, assign.value, set(CONTRACT_CONSTANTS))
        return Declared(name, owner, assign)

    def acquisition(self, cls: ClassInfo | None) -> str | None:
        if cls is None:
            return None
        name = self.contract(cls).value
        return CONTRACT_CONSTANTS[name][0] if isinstance(name, str) else None

    def feedback(self, cls: ClassInfo | None) -> str | None:
        if cls is None:
            return None
        name = self.contract(cls).value
        return CONTRACT_CONSTANTS[name][1] if isinstance(name, str) else None

    def class_value(self, cls: ClassInfo, attr: str) -> Declared:
        found = self.index.lookup(cls, attr)
        if found is None:
            return Declared(None, None, None)
        owner, assign = found
        return Declared(self.index.literal(owner.module, assign.value), owner, assign)

    def paradigm(self, cls: ClassInfo | None) -> str | None:
        if cls is None:
            return None
        value = self.class_value(cls, "paradigm").value
        return value if isinstance(value, str) else None

    def framework(self, cls: ClassInfo) -> frozenset[int]:
        """ids of BaseTrainer / TrainingArguments and everything they inherit."""
        for c in self.index.mro(cls):
            if c.name in (BASE_TRAINER, BASE_ARGS):
                return frozenset(id(x) for x in self.index.mro(c))
        return frozenset()

    def own_classes(self, cls: ClassInfo) -> tuple[ClassInfo, ...]:
        """The algorithm's own part of the MRO: the class and its non-framework ancestors."""
        cache = self.__dict__.setdefault("_own_cache", {})  # every rule asks again, per method
        if id(cls) not in cache:
            fw = self.framework(cls)
            cache[id(cls)] = tuple(c for c in self.index.mro(cls) if id(c) not in fw)
        return cache[id(cls)]

    def own_method(self, cls: ClassInfo, name: str) -> ClassInfo | None:
        return next((c for c in self.own_classes(cls) if name in c.methods), None)

    def effective_methods(self, cls: ClassInfo) -> list[tuple[ClassInfo, ast.AST]]:
        """Own methods that actually run: the first definition of each name in the MRO, plus
        the next ones while a definition calls ``super().<name>()``."""
        cache = self.__dict__.setdefault("_effective_cache", {})  # several rules ask per class
        if id(cls) not in cache:
            cache[id(cls)] = self._effective_methods(cls)
        return list(cache[id(cls)])

    def _effective_methods(self, cls: ClassInfo) -> list[tuple[ClassInfo, ast.AST]]:
        out: list[tuple[ClassInfo, ast.AST]] = []
        own = self.own_classes(cls)
        for name in dict.fromkeys(n for c in own for n in c.methods):
            for owner in (c for c in own if name in c.methods):
                fn = owner.methods[name]
                out.append((owner, fn))
                if not _calls_super(fn, name):
                    break
        return out

    def is_trainer_class(self, cls: ClassInfo) -> bool:
        return any(c.name == BASE_TRAINER for c in self.index.mro(cls))

    def roles(self, args_cls: ClassInfo | None) -> tuple[tuple[str, ...] | None, int]:
        """``required_trainable_roles`` as a literal tuple (and its line), when declared."""
        if args_cls is None:
            return None, 0
        cache = self.__dict__.setdefault("_roles_cache", {})  # every example asks again
        if id(args_cls) not in cache:
            cache[id(args_cls)] = self._roles(args_cls)
        return cache[id(args_cls)]

    def _roles(self, args_cls: ClassInfo) -> tuple[tuple[str, ...] | None, int]:
        owner = self.own_method(args_cls, "required_trainable_roles")
        if owner is None:
            return None, 0
        fn = owner.methods["required_trainable_roles"]
        for node in walk(fn):
            if isinstance(node, ast.Return):
                value = self.index.literal(owner.module, node.value)
                if isinstance(value, tuple | list) and all(isinstance(v, str) for v in value):
                    return tuple(value), fn.lineno
        return (), fn.lineno


def _calls_super(fn: ast.AST, name: str) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.value, ast.Call)
        and getattr(n.value.func, "id", "") == "super"
        for n in walk(fn)
    )


def build_facts(index: CheckoutIndex) -> Facts:
    args, trainers = read_registries(index)
    return facts_of(index, args, trainers, registered_keys(args, trainers))


def facts_of(index: CheckoutIndex, args: Registry, trainers: Registry,
             selected: tuple[str, ...], **batch) -> Facts:
    """The facts of the algorithms ``selected``: whole, or one batch's (``batch``: the
    :class:`Facts` fields a batch carries across, see there)."""
    algorithms = tuple(resolve_algorithm(index, k, args, trainers) for k in selected)
    return Facts(index, args, trainers, algorithms, **batch)


def read_registries(index: CheckoutIndex) -> tuple[Registry, Registry]:
    """The args and the trainer registry."""
    args = read_registry(index, ARGS_REGISTRY_MODULE, ARGS_REGISTRY_NAME, layout.ARGS_REGISTRY)
    trainers = read_registry(
        index, TRAINER_REGISTRY_MODULE, TRAINER_REGISTRY_NAME, layout.TRAINER_REGISTRY
    )
    return args, trainers


def registered_keys(args: Registry, trainers: Registry) -> tuple[str, ...]:
    """Every key of either registry: the args registry's order, then the trainers'."""
    return tuple(dict.fromkeys([*args.keys(), *trainers.keys()]))


def resolve_algorithm(index: CheckoutIndex, key: str, args: Registry, trainers: Registry
                      ) -> Algorithm:
    return _algorithm(index, key, args.get(key), trainers.get(key))


def _algorithm(
    index: CheckoutIndex, key: str, a: RegistryEntry | None, t: RegistryEntry | None
) -> Algorithm:
    args_cls = index.resolve_class(ARGS_REGISTRY_MODULE, a.value) if a is not None else None
    trainer_cls = None
    if t is not None and isinstance(t.value, ast.Constant) and isinstance(t.value.value, str):
        trainer_cls = index.resolve_dotted_class(t.value.value)
    return Algorithm(key, a, t, args_cls, trainer_cls)


def module_info(index: CheckoutIndex, dotted: str) -> ModuleInfo | None:
    return index.module(dotted)
