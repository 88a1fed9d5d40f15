"""A corpus of bad inputs: each gives one clear line, a non-zero exit and a byte-identical tree.

Every case starts from a fresh sandbox checkout, optionally damaged by a ``setup`` step, runs one
ffgen command in-process and checks three things: the exit code is 1 or 2, stderr is exactly one
``error:`` line holding the expected words (the problem and, where there is one, the fix), and no
file, folder or link in the checkout (or next to it) changed.
"""

from __future__ import annotations

import builtins
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ffgen.cli import app
from ffgen.sandbox import create_sandbox
from tests.helpers import tree

GRPO = ["--acquisition", "generation", "--feedback", "runtime_reward", "--paradigm", "coupled"]
SFT = ["--acquisition", "dataset", "--supervision", "demonstrations"]
ARGS_REGISTRY = "src/flow_factory/hparams/training_args/_registry.py"
ARGS_INIT = "src/flow_factory/hparams/training_args/__init__.py"
HPARAMS_INIT = "src/flow_factory/hparams/__init__.py"
TRAINER_REGISTRY = "src/flow_factory/trainers/registry.py"
OFFLINE_INIT = "src/flow_factory/trainers/offline/__init__.py"


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]  # after the command name; {root} and {outside} are filled in
    expect: tuple[str, ...]  # fragments of the one error line
    setup: Callable[[Path, Path], None] | None = None
    command: str = "new"
    unreadable: str | None = None  # a file whose reads fail with EACCES (root ignores chmod)


def new(name: str, *flags: str) -> tuple[str, ...]:
    return (name, "--checkout", "{root}", "--yes", "--model-type", "toy", *flags)


def sft(name: str = "my-algo", *flags: str) -> tuple[str, ...]:
    return new(name, *SFT, *flags)


# -- setups: each damages the checkout (root) or uses the folder beside it (outside) ----------


def edit(path: str, old: str, new_text: str):
    def setup(root: Path, outside: Path) -> None:
        target = root / path
        text = target.read_text()
        assert old in text, f"{path} no longer holds {old!r}; update the corpus"
        target.write_text(text.replace(old, new_text, 1))

    return setup


def append(path: str, text: str):
    def setup(root: Path, outside: Path) -> None:
        with (root / path).open("a") as handle:
            handle.write(text)

    return setup


def write_bytes(path: str, data: bytes):
    def setup(root: Path, outside: Path) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)

    return setup


def delete(path: str):
    def setup(root: Path, outside: Path) -> None:
        (root / path).unlink()

    return setup


def make_dir(path: str):
    def setup(root: Path, outside: Path) -> None:
        (root / path).mkdir(parents=True)

    return setup


def link_out(path: str, *, dangling: bool = False):
    def setup(root: Path, outside: Path) -> None:
        target = outside / ("missing" if dangling else "elsewhere")
        if not dangling:
            target.mkdir(exist_ok=True)
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).symlink_to(target, target_is_directory=True)

    return setup


def old_layout(root: Path, outside: Path) -> None:
    folder = root / "src/flow_factory/hparams/training_args"
    shutil.rmtree(folder)
    (root / "src/flow_factory/hparams/training_args.py").write_text("class TrainingArguments:\n"
                                                                     "    pass\n")


def record(text: str, name: str = "answers.yml"):
    def setup(root: Path, outside: Path) -> None:
        (outside / name).write_text(text)

    return setup


def generated_then(step):
    """Generate ``my-algo`` (SFT) first, then damage: for remove/update/check cases."""

    def setup(root: Path, outside: Path) -> None:
        from typer.testing import CliRunner

        args = [a.replace("{root}", str(root)) for a in ("new", *sft())]
        assert CliRunner().invoke(app, args).exit_code == 0
        if step is not None:
            step(root, outside)

    return setup


GOOD_RECORD_KEYS = "format: 2\nffgen_version: 0.1.0\nkey: my-algo\ncontract: X\n"

CASES = [
    # -- names ---------------------------------------------------------------------------
    Case("name-empty", sft(""), ("NAME is empty", "my-algo")),
    Case("name-blank", sft("   "), ("NAME is empty",)),
    Case("name-uppercase-hyphens", sft("MY-ALGO"), ("uppercase", "use my-algo")),
    # flow-grpo derives the stem FlowGRPO itself (acronyms kept): no --class-name needed
    Case("name-camel", sft("FlowGRPO"), ("uppercase", "use flow-grpo")),
    Case("name-camel-stem", sft("MyGrpoX"), ("uppercase", "use my-grpo-x", "--class-name MyGrpoX")),
    Case("name-space", sft("my algo"), ("not a valid key", "my-algo")),
    Case("name-digit", sft("1algo"), ("starts with a digit",)),
    Case("name-path", sft("../evil"), ("looks like a path",)),
    Case("name-slash", sft("a/b"), ("looks like a path",)),
    Case("name-dot", sft(".hidden"), ("looks like a path",)),
    Case("name-keyword", sft("class"), ("Python keyword",)),
    Case("name-unicode", sft("älgo"), ("non-ASCII",)),
    Case("name-double-hyphen", sft("a--b"), ("not a valid key",)),
    Case("name-taken-key", sft("sft"), ("already a registered algorithm key",)),
    Case("name-taken-module", sft("offline-dpo"), ("already",)),
    # -- flag values -------------------------------------------------------------------------
    Case("acquisition", new("my-algo", "--acquisition", "scraped"),
         ("--acquisition 'scraped' is not valid", "generation|dataset")),
    Case("feedback", new("my-algo", "--acquisition", "generation", "--feedback", "vibes"),
         ("--feedback 'vibes'",)),
    Case("paradigm", new("my-algo", "--acquisition", "generation", "--paradigm", "magic"),
         ("--paradigm 'magic'",)),
    Case("dynamics", new("my-algo", *GRPO, "--dynamics", "jump"), ("--dynamics 'jump'",)),
    Case("supervision", sft("my-algo", "--supervision", "vibes"), ("supervision",)),
    Case("record-type-lowercase", new("my-algo", "--acquisition", "dataset", "--supervision",
                                      "record:caption"), ("record",)),
    Case("state", sft("my-algo", "--state", "liquid"), ("--state 'liquid'",)),
    Case("ownership", sft("my-algo", "--ownership", "shared"), ("--ownership 'shared'",)),
    Case("roles-one", new("my-algo", "--acquisition", "generation", "--feedback", "none",
                          "--ownership", "multi_role", "--roles", "solo"), ("--roles",)),
    Case("roles-bad-name", new("my-algo", "--acquisition", "generation", "--feedback", "none",
                               "--ownership", "multi_role", "--roles", "Gen,Critic"),
         ("--roles",)),
    Case("model-type", ("my-algo", "--checkout", "{root}", "--yes", "--model-type", "nope",
                        *SFT), ("--model-type 'nope'", "toy")),
    Case("model-type-traversal", ("my-algo", "--checkout", "{root}", "--yes", "--model-type",
                                  "../../x", *SFT), ("--model-type",)),
    Case("finetune", sft("my-algo", "--finetune-type", "half"), ("--finetune-type 'half'",)),
    Case("category", sft("my-algo", "--category", "Bad-Cat"), ("--category 'Bad-Cat'",)),
    Case("category-traversal", sft("my-algo", "--category", "../x"), ("--category",)),
    Case("class-name-lower", sft("my-algo", "--class-name", "lower"), ("--class-name 'lower'",)),
    Case("class-name-suffix", sft("my-algo", "--class-name", "FooTrainer"),
         ("ends with 'Trainer'",)),
    Case("class-name-traversal", sft("my-algo", "--class-name", "../X"), ("--class-name",)),
    Case("format", sft("my-algo", "--format", "xml"), ("--format 'xml'",)),
    # -- combinations no contract covers -----------------------------------------------------
    Case("dataset-with-reward", new("my-algo", *SFT, "--feedback", "runtime_reward"),
         ("no", "contract")),
    Case("coupled-ode", new("my-algo", *GRPO, "--dynamics", "ode"), ("coupled", "sde")),
    Case("distillation-from-dataset", new("my-algo", *SFT, "--paradigm", "distillation"),
         ("distillation",)),
    Case("decoupled-no-signal", new("my-algo", "--acquisition", "generation", "--feedback",
                                    "none", "--paradigm", "decoupled"), ("training signal",)),
    # -- checkouts and layouts ---------------------------------------------------------------
    Case("no-checkout", ("my-algo", "--checkout", "{outside}/nowhere", "--yes", *SFT),
         ("no such directory",)),
    Case("old-layout", sft(), ("layout",), setup=old_layout),
    Case("no-contracts", sft(), ("execution.py",),
         setup=delete("src/flow_factory/contracts/execution.py")),
    Case("no-trainer-registry", sft(), ("registry.py",), setup=delete(TRAINER_REGISTRY)),
    Case("renamed-args-registry", sft(), ("_TRAINING_ARGS_REGISTRY",),
         setup=edit(ARGS_REGISTRY, "_TRAINING_ARGS_REGISTRY", "_ARGS_TABLE")),
    Case("renamed-trainer-registry", sft(), ("_TRAINER_REGISTRY",),
         setup=edit(TRAINER_REGISTRY, "_TRAINER_REGISTRY", "_TRAINERS")),
    # -- syntax errors in each file `new` edits ------------------------------------------------
    Case("syntax-args-registry", sft(), (ARGS_REGISTRY,), setup=append(ARGS_REGISTRY, "def (:\n")),
    Case("syntax-args-init", sft(), (ARGS_INIT,), setup=append(ARGS_INIT, "def (:\n")),
    Case("syntax-hparams-init", sft(), (HPARAMS_INIT,), setup=append(HPARAMS_INIT, "def (:\n")),
    Case("syntax-trainer-registry", sft(), (TRAINER_REGISTRY,),
         setup=append(TRAINER_REGISTRY, "def (:\n")),
    Case("syntax-category-init", sft(), (OFFLINE_INIT,), setup=append(OFFLINE_INIT, "def (:\n")),
    # -- the file system -----------------------------------------------------------------------
    Case("file-where-folder", sft(), ("examples/my_algo",),
         setup=write_bytes("examples/my_algo", b"not a folder\n")),
    Case("folder-where-file", sft(), ("training_args/my_algo.py", "folder"),
         setup=make_dir("src/flow_factory/hparams/training_args/my_algo.py")),
    Case("symlink-out-examples", sft(), ("examples/my_algo", "outside the checkout"),
         setup=link_out("examples/my_algo")),
    Case("symlink-out-tests", sft(), ("tests/trainers", "outside the checkout"),
         setup=link_out("tests/trainers")),
    Case("dangling-symlink", sft(), ("examples/my_algo",),
         setup=link_out("examples/my_algo", dangling=True)),
    Case("non-utf8-registry", sft(), (ARGS_REGISTRY, "not UTF-8", "save it as UTF-8"),
         setup=write_bytes(ARGS_REGISTRY, b"# caf\xe9\n_TRAINING_ARGS_REGISTRY = {}\n")),
    Case("unreadable-registry", sft(), (TRAINER_REGISTRY, "permission denied"),
         unreadable=TRAINER_REGISTRY),
    # -- answers records and --answers ---------------------------------------------------------
    Case("answers-missing-file", (*sft(), "--answers", "{outside}/none.yml"), ("no such file",)),
    Case("answers-not-yaml", (*sft(), "--answers", "{outside}/answers.yml"), ("not valid YAML",),
         setup=record("format: 2\nkey: [oops\n")),
    Case("answers-unknown-key", (*sft(), "--answers", "{outside}/answers.yml"),
         ("unknown key 'colour'",), setup=record(GOOD_RECORD_KEYS + "answers:\n  name: my-algo\n"
                                                 "  colour: red\n")),
    Case("answers-bad-value", ("my-algo", "--checkout", "{root}", "--answers",
                               "{outside}/answers.yml"), ("--acquisition 'telepathy'",),
         setup=record(GOOD_RECORD_KEYS + "answers:\n  name: my-algo\n  acquisition: telepathy\n")),
    Case("answers-traversal", (*sft(), "--answers", "{outside}/answers.yml"),
         ("leaves the checkout",),
         setup=record(GOOD_RECORD_KEYS + "answers:\n  name: my-algo\nfiles:\n- path: ../../x.py\n"
                      "  sha256: 0\n  pristine: x\n")),
    # -- records are checked with the rules of the flags, on every read -----------------------
    Case("update-record-model-type-traversal", ("my-algo", "--checkout", "{root}"),
         ("my-algo.yml", "--model-type '../../../x'"), command="update",
         setup=generated_then(edit(".ffgen/answers/my-algo.yml", "model_type: toy",
                                   "model_type: ../../../x"))),
    Case("remove-record-keyword-category", ("my-algo", "--checkout", "{root}"),
         ("my-algo.yml", "--category 'class'", "Python keyword"), command="remove",
         setup=generated_then(edit(".ffgen/answers/my-algo.yml", "  category: offline",
                                   "  category: class"))),
    # -- names that would generate broken code -------------------------------------------------
    Case("role-named-default", new("my-algo", "--acquisition", "generation", "--feedback",
                                   "none", "--paradigm", "distillation", "--ownership",
                                   "multi_role", "--roles", "default,generator"),
         ("'default' is reserved",)),
    Case("record-shadows-an-import", new("my-algo", "--acquisition", "dataset",
                                         "--supervision", "record:BaseTrainer"),
         ("BaseTrainer", "shadow")),
    Case("record-shadows-a-builtin", new("my-algo", "--acquisition", "dataset",
                                         "--supervision", "record:ValueError"),
         ("ValueError", "shadow")),
    Case("record-is-the-trainer", new("my-algo", "--acquisition", "dataset",
                                      "--supervision", "record:MyAlgoTrainer"),
         ("MyAlgoTrainer", "generated trainer class")),
    Case("name-too-long", sft("a" * 230), ("230 characters", "more than the 64")),
    Case("category-keyword", sft("my-algo", "--category", "class"), ("Python keyword",)),
    Case("category-soft-keyword", sft("my-algo", "--category", "match"), ("Python keyword",)),
    # -- the lock and the journal ----------------------------------------------------------------
    Case("lock-is-a-folder", sft(), (".ffgen/lock", "is a folder"), setup=make_dir(".ffgen/lock")),
    Case("journal-garbled", sft(), (".ffgen/journal.json", "not a journal ffgen can read"),
         setup=write_bytes(".ffgen/journal.json", b"{")),
    Case("journal-garbled-verify", ("--checkout", "{root}"), (".ffgen/journal.json",),
         command="verify", setup=write_bytes(".ffgen/journal.json", b"[1]")),
    # -- the other commands --------------------------------------------------------------------
    Case("verify-unknown-key", ("--checkout", "{root}", "--algorithm", "nope"), ("nope",),
         command="verify"),
    Case("verify-format", ("--checkout", "{root}", "--format", "xml"), ("xml",), command="verify"),
    Case("remove-unknown", ("nope", "--checkout", "{root}"), ("not a registered algorithm key",),
         command="remove"),
    Case("remove-hand-written", ("sft", "--checkout", "{root}"), ("not generated by ffgen",),
         command="remove"),
    Case("remove-record-traversal", ("my-algo", "--checkout", "{root}"), ("leaves the checkout",),
         command="remove", setup=generated_then(edit(".ffgen/answers/my-algo.yml",
                                                     "- path: src/", "- path: ../src/"))),
    Case("update-unknown", ("nope", "--checkout", "{root}"), ("no ffgen record",),
         command="update"),
    Case("update-conflict-mode", ("my-algo", "--checkout", "{root}", "--conflict", "theirs"),
         ("inline or refuse",), command="update", setup=generated_then(None)),
    Case("list-format", ("--checkout", "{root}", "--format", "xml"), ("--format 'xml'",),
         command="list"),
    # (``check`` and ``list`` show a damaged record as broken beside the others; ``update``
    # refuses it)
    Case("update-bad-record", ("my-algo", "--checkout", "{root}",),
         ("my-algo.yml", "not valid YAML"), command="update",
         setup=generated_then(write_bytes(".ffgen/answers/my-algo.yml", b"key: [\n"))),
    Case("sandbox-not-empty", ("{root}",), ("not empty",), command="sandbox"),
    Case("sandbox-below-a-file", ("{root}/AGENTS.md/sandbox",), ("Not a directory",),
         command="sandbox"),
    Case("sandbox-dangling-link", ("{outside}/link",), ("dangling symlink",), command="sandbox",
         setup=lambda root, outside: (outside / "link").symlink_to(outside / "nowhere")),
]


def _deny_reads(monkeypatch, denied: Path) -> None:
    """Every way ffgen opens ``denied`` fails as an unreadable file does (the tests run as root,
    for whom chmod denies nothing)."""
    for method in ("read_text", "read_bytes"):
        real = getattr(Path, method)

        def read(self, *args, _real=real, **kwargs):
            if self == denied:
                raise PermissionError(13, "Permission denied", str(self))
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(Path, method, read)
    real_open = builtins.open

    def open_(file, *args, **kwargs):
        if isinstance(file, str | os.PathLike) and Path(file) == denied:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", open_)
    real_os_open = os.open

    def os_open(file, *args, **kwargs):  # the checkout view opens files with os.open
        if isinstance(file, str | os.PathLike) and Path(file) == denied:
            raise PermissionError(13, "Permission denied", str(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return create_sandbox(tmp_path_factory.mktemp("corpus") / "checkout")


def test_the_corpus_has_at_least_fifty_cases():
    assert len(CASES) >= 50
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_gives_one_clear_line_and_changes_nothing(
    runner, pristine, tmp_path, monkeypatch, case
):
    root = tmp_path / "checkout"
    shutil.copytree(pristine, root, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    if case.setup is not None:
        case.setup(root, outside)
    before = (tree(root), tree(outside))
    args = [a.replace("{root}", str(root)).replace("{outside}", str(outside)) for a in case.args]
    if case.unreadable is not None:
        _deny_reads(monkeypatch, root / case.unreadable)
    result = runner.invoke(app, [case.command, *args])
    monkeypatch.undo()  # the denied reads were for ffgen, not for the checks below
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), f"traceback: {result.exception!r}"
    assert result.exit_code in (1, 2), result.output
    # Informative notes ("forced: ...") may go to stdout; the problem is one line on stderr.
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    for fragment in case.expect:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    assert (tree(root), tree(outside)) == before


@pytest.mark.parametrize(
    ("argv", "expect"),
    [
        (["new", "-x"], "No such option: -x; see `python -m ffgen new --help`"),
        (["new"], "Missing argument 'NAME'"),
        (["new", "my-algo", "--acquisition"], "'--acquisition' requires an argument"),
        (["frobnicate"], "No such command 'frobnicate'"),
    ],
)
def test_the_command_lines_own_usage_errors_are_one_line_too(tmp_path, argv, expect):
    """click's usage errors are a box of several lines; the ffgen command prints one."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "ffgen", *argv], cwd=tmp_path,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith("error: ") and expect in result.stderr
    assert list(tmp_path.iterdir()) == []
