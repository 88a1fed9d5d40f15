"""One algorithm name in its three spellings: registry key, module and class stem."""

from __future__ import annotations

import dataclasses
import keyword
import re
from collections.abc import Iterable

from ffgen.errors import UsageError

_KEY_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
# The longest NAME: the key is a module file name and a folder name (examples/<module>/, and
# test_<module>_args.py), which must fit the file system's 255-byte limit with room to spare.
MAX_KEY_LENGTH = 64
_STEM_RE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
# Plain YAML scalars PyYAML (YAML 1.1) reads as booleans or null: as a key, `trainer_type: yes`
# in the example config would not be the key.
_YAML_WORDS = {
    **dict.fromkeys(("yes", "no", "true", "false", "on", "off"), "boolean"),
    "null": "null",
}
# Flow-Factory's base classes the generated modules import and subclass; a stem that gives one
# of these names would shadow it.
_FRAMEWORK_CLASSES = ("BaseTrainer", "OfflineFlowMatchingTrainingArguments")
_SUFFIXES = ("TrainingArguments", "Trainer")
# Flow-Factory spells the acronyms in its class names in capitals (``OfflineDPOTrainer``,
# ``GRPOTrainer``), so a key part that is one keeps them: ``margin-dpo`` -> ``MarginDPO``. These
# are the algorithm acronyms it and the literature use; the checkout's own class names add theirs.
KNOWN_ACRONYMS = frozenset(
    {"AWM", "CRD", "DDPO", "DGPO", "DMD", "DPO", "DPPO", "GRPO", "IPO", "KTO", "NFT", "OPD",
     "ORPO", "PPO", "RLOO", "SFT", "SPO", "TDM"}
)  # fmt: skip
# A run of capitals that ends where a capitalised word or a digit starts (``GRPO`` in
# ``GRPOGuard``, ``DMD`` in ``DMD2``), two letters at least.
_ACRONYM_RE = re.compile(r"[A-Z]{2,}(?=[A-Z][a-z]|[0-9]|$)")
_PART_RE = re.compile(r"^([a-z]+)([0-9]*)$")


def acronyms_in(class_names: Iterable[str]) -> frozenset[str]:
    """The acronyms class names spell in capitals (``OfflineDPOTrainer`` -> ``DPO``)."""
    found: set[str] = set()
    for name in class_names:
        for suffix in _SUFFIXES:
            name = name.removesuffix(suffix)
        found.update(_ACRONYM_RE.findall(name))
    return frozenset(found)


@dataclasses.dataclass(frozen=True, slots=True)
class AlgorithmNames:
    """NAME's spellings: registry key, module and class stem."""
    key: str  # registry key: my-algo
    module: str  # module and example folder: my_algo
    stem: str  # class stem: MyAlgo

    @property
    def args_class(self) -> str:
        return f"{self.stem}TrainingArguments"

    @property
    def trainer_class(self) -> str:
        return f"{self.stem}Trainer"


def suggest_key(name: str) -> str | None:
    """The registry key a mixed-case name most likely means (``FlowGRPO`` -> ``flow-grpo``,
    ``MY-ALGO`` -> ``my-algo``), or None when no valid key comes out."""
    # A word starts at a lower->upper step, or where an acronym meets a capitalised word.
    split = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name.strip())
    key = re.sub(r"-{2,}", "-", re.sub(r"[\s_]+", "-", split.lower())).strip("-")
    return key if _KEY_RE.match(key) else None


def _uppercase_message(name: str) -> str:
    head = f"NAME {name!r} has uppercase letters; registry keys are lowercase"
    key = suggest_key(name)
    if key is None:
        return f"{head}: use lowercase words joined by hyphens (my-algo)"
    keep_stem = f" (and --class-name {name} to keep that class stem)"
    # No --class-name hint when the key derives that stem anyway (FlowGRPO -> flow-grpo).
    derives = derive_stem(key) == name
    return f"{head}: use {key}" + (keep_stem if _STEM_RE.match(name) and not derives else "")


def parse_name(
    name: str, class_name: str | None = None, acronyms: frozenset[str] = KNOWN_ACRONYMS
) -> AlgorithmNames:
    """Validate ``NAME`` (and ``--class-name``) and derive the three spellings; a key part that
    is one of ``acronyms`` stays in capitals in the derived class stem."""
    raw = name
    if not name or not name.strip():
        raise UsageError("NAME is empty; give the algorithm a name such as my-algo")
    if not name.isascii():
        raise UsageError(f"NAME {raw!r} has non-ASCII characters; use a-z, 0-9 and hyphens")
    if len(name.strip()) > MAX_KEY_LENGTH:
        raise UsageError(
            f"NAME has {len(name.strip())} characters, more than the {MAX_KEY_LENGTH} a key may "
            "have (it names files and folders); choose a shorter name"
        )
    if "/" in name or "\\" in name or ".." in name or name.startswith("."):
        raise UsageError(f"NAME {raw!r} looks like a path; give a bare name such as my-algo")
    if name != name.lower():
        raise UsageError(_uppercase_message(name))
    key = name.strip().replace("_", "-")
    if key[0].isdigit():
        raise UsageError(f"NAME {raw!r} starts with a digit; Python modules cannot, rename it")
    if not _KEY_RE.match(key):
        raise UsageError(
            f"NAME {raw!r} is not a valid key; use lowercase words joined by hyphens (my-algo)"
        )
    module = key.replace("-", "_")
    if keyword.iskeyword(module) or keyword.issoftkeyword(module):
        raise UsageError(f"NAME {raw!r} is a Python keyword; choose another name")
    if key in _YAML_WORDS:
        raise UsageError(
            f"NAME {raw!r} reads as a YAML {_YAML_WORDS[key]}, so `trainer_type: {key}` in a "
            "config would not name it; choose another name"
        )
    if class_name is None:
        stem = _derived_stem(raw, key, acronyms)
    else:
        stem = _given_stem(class_name)
    return AlgorithmNames(key=key, module=module, stem=stem)


def check_record_type(names: AlgorithmNames, record_type: str | None) -> None:
    """A record type must not take the name of the algorithm's own classes."""
    if record_type in (names.trainer_class, names.args_class):
        raise UsageError(
            f"--supervision record:{record_type} is the name of the generated "
            f"{'trainer' if record_type == names.trainer_class else 'arguments'} class; "
            "choose another type name"
        )


def _given_stem(stem: str) -> str:
    """``--class-name``, checked."""
    if len(stem) > MAX_KEY_LENGTH:
        raise UsageError(
            f"--class-name has {len(stem)} characters, more than {MAX_KEY_LENGTH}; shorten it"
        )
    if not stem.isascii() or not _STEM_RE.match(stem) or keyword.iskeyword(stem):
        raise UsageError(
            f"--class-name {stem!r} is not a valid class stem; use CamelCase ASCII such as MyAlgo"
        )
    for suffix in _SUFFIXES:
        if stem.endswith(suffix):
            raise UsageError(
                f"--class-name {stem!r} ends with {suffix!r}; give the stem only (ffgen adds it)"
            )
    shadowed = _shadowed(stem)
    if shadowed:
        raise UsageError(
            f"--class-name {stem!r} would name a class {shadowed}, which is Flow-Factory's own "
            "base class; choose another stem"
        )
    return stem


def derive_stem(key: str, acronyms: frozenset[str] = KNOWN_ACRONYMS) -> str:
    """``my-algo`` -> ``MyAlgo``; a part that is an acronym (with a version number: ``dmd2``)
    is spelled in capitals: ``margin-dpo`` -> ``MarginDPO``."""
    return "".join(_stem_part(part, acronyms) for part in key.split("-"))


def _stem_part(part: str, acronyms: frozenset[str]) -> str:
    match = _PART_RE.match(part)
    if match and match.group(1).upper() in acronyms:
        return match.group(1).upper() + match.group(2)
    return part[:1].upper() + part[1:]


def _derived_stem(raw: str, key: str, acronyms: frozenset[str]) -> str:
    """The stem of a valid key. It is only ever used with a suffix, so ``none`` ->
    ``NoneTrainer`` is fine; the messages name NAME, the flag the user gave."""
    stem = derive_stem(key, acronyms)
    for suffix in _SUFFIXES:
        if stem.endswith(suffix):
            return _refuse_suffix(raw, key, stem, suffix)
    shadowed = _shadowed(stem)
    if shadowed:
        raise UsageError(
            f"NAME {raw!r} would name a class {shadowed}, which is Flow-Factory's own base class; "
            "choose another NAME or pass --class-name"
        )
    return stem


def _refuse_suffix(raw: str, key: str, stem: str, suffix: str) -> str:
    words = "-".join(re.findall(r"[A-Z][a-z]*", suffix)).lower()  # "training-arguments"
    shorter = key[: -len(words)].rstrip("-")
    fix = f"use {shorter}" if shorter else "choose another NAME"
    raise UsageError(
        f"NAME {raw!r} ends with {words!r}, which ffgen adds to the class names itself "
        f"({stem}{suffix}); {fix}, or pass --class-name to keep this key"
    )


def _shadowed(stem: str) -> str | None:
    for suffix in _SUFFIXES:
        if stem + suffix in _FRAMEWORK_CLASSES:
            return stem + suffix
    return None
