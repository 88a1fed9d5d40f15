"""Property: any NAME and any combination of ``ffgen new`` answers either works or is refused
cleanly, never a traceback.

Each example copies one pristine sandbox, runs ``ffgen new`` in-process with ``--yes`` and a drawn
set of answers (every flag of ``ffgen new --help`` except ``--debug``, which exists to show
tracebacks; the answers go on the command line or, some of them, into an ``--answers`` record),
then checks one of two outcomes:

- exit 0: unless ``--dry-run``, the algorithm's record is there and ``ffgen verify`` reports no
  errors on the checkout (``new`` has already run the conformance check before writing); with
  ``--dry-run``, the tree is byte-identical;
- exit 1 or 2: stderr is exactly one ``error:`` line and the tree is byte-identical.

``result.exception`` is ``None`` or ``SystemExit`` in both cases.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ffgen.checkout.view import CheckoutView
from ffgen.classify.names import parse_name
from ffgen.cli import app
from ffgen.errors import UsageError
from ffgen.sandbox import create_sandbox
from ffgen.verify.engine import run_verify
from tests.helpers import tree

# -- names -------------------------------------------------------------------------------------

VALID_KEYS = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True)
TRICKY_NAMES = st.sampled_from(
    [
        "",
        " ",
        "MY-ALGO",
        "FlowGRPO",
        "my_algo",
        "my algo",
        "1algo",
        "../evil",
        "a/b",
        ".hidden",
        "class",
        "import",
        "älgo",
        "a--b",
        "-leading",
        "trailing-",
        "sft",
        "grpo",
        "offline-dpo",
        "offline_dpo",
        "my-algo\n",
        "tab\there",
        "x" * 80,
        "nul\x00byte",
        "trainer",
        "my-trainer",
        "training-args",
        "yes",
        "null",
        "none",
        "base",
        "offline-flow-matching",
    ]
)
NAMES = st.one_of(VALID_KEYS, TRICKY_NAMES, st.text(max_size=12))

# -- answers: per flag, valid values and a few invalid ones --------------------------------------

STEMS = st.from_regex(r"[A-Z][A-Za-z0-9]{0,8}", fullmatch=True)
RECORD_TYPES = st.from_regex(r"[A-Z][A-Za-z0-9]{0,8}Record", fullmatch=True)

FLAGS: dict[str, tuple[st.SearchStrategy[str], st.SearchStrategy[str]]] = {
    # flag: (valid values, invalid values)
    "acquisition": (st.sampled_from(["generation", "dataset"]), st.sampled_from(["scraped", ""])),
    "feedback": (st.sampled_from(["runtime_reward", "none"]), st.sampled_from(["vibes", "None"])),
    "paradigm": (
        st.sampled_from(["coupled", "decoupled", "distillation"]),
        st.sampled_from(["magic", "Coupled"]),
    ),
    "dynamics": (st.sampled_from(["sde", "ode", "any"]), st.sampled_from(["jump"])),
    "supervision": (
        st.one_of(
            st.sampled_from(["prompts", "demonstrations", "preference_pairs"]),
            RECORD_TYPES.map(lambda t: f"record:{t}"),
        ),
        st.sampled_from(["vibes", "record:", "record:lower", "record:../X"]),
    ),
    "state": (st.sampled_from(["legacy", "structured"]), st.sampled_from(["liquid"])),
    "ownership": (
        st.sampled_from(["single", "multi_role", "snapshots"]),
        st.sampled_from(["shared", "multi-role"]),
    ),
    "roles": (
        st.sampled_from(["generator,critic", "student,fake", "generator,critic,judge"]),
        st.sampled_from(["solo", "Gen,Critic", "a,a", ",", "generator,../x"]),
    ),
    "role-cadence": (
        st.sampled_from(["critic=2", "fake=5", "critic=1,judge=3"]),
        st.sampled_from(["critic=0", "critic", "=3", "generator=2", "critic=-1", "critic=x"]),
    ),
    "model-type": (st.just("toy"), st.sampled_from(["nope", "../../x", "Toy"])),
    "finetune-type": (st.sampled_from(["lora", "full"]), st.sampled_from(["half"])),
    "category": (
        st.sampled_from(["rl", "distillation", "offline", "custom_algos"]),
        st.sampled_from(["Bad-Cat", "../x", "a/b", ""]),
    ),
    "class-name": (
        STEMS,
        st.sampled_from(["lower", "FooTrainer", "../X", "Foo-Bar", "", "Base", "None"]),
    ),
    "format": (st.sampled_from(["text", "json"]), st.sampled_from(["xml"])),
}
SWITCHES = ("dry-run", "force")
RECORD_HEAD = {"format": 2, "ffgen_version": "0.1.0", "contract": "X"}


# Answers that classify into each family: the rest of the flags are drawn on top of one of them,
# so that a good share of examples gets through to writing files.
FAMILIES = [
    {"acquisition": "generation", "feedback": "runtime_reward", "paradigm": "coupled"},
    {"acquisition": "generation", "feedback": "runtime_reward", "paradigm": "decoupled"},
    {
        "acquisition": "generation",
        "feedback": "runtime_reward",
        "paradigm": "decoupled",
        "ownership": "snapshots",
    },
    {"acquisition": "generation", "feedback": "none"},
    {
        "acquisition": "generation",
        "feedback": "none",
        "paradigm": "distillation",
        "ownership": "multi_role",
        "roles": "generator,critic",
        "role-cadence": "critic=2",
    },
    {"acquisition": "dataset", "supervision": "demonstrations"},
    {"acquisition": "dataset", "supervision": "preference_pairs"},
    {"acquisition": "dataset", "supervision": "record:CaptionRecord"},
]
# Flags a family leaves open that any valid value may take.
FREE = ("state", "model-type", "finetune-type", "category", "class-name", "format")


@st.composite
def answer_sets(draw, mode: str) -> dict[str, str]:
    """A value for some of the flags. ``family``: one family's answers plus valid free flags;
    ``valid``: any valid values, mostly left out; ``mixed``: now and then an invalid one."""
    if mode == "family":
        out = dict(draw(st.sampled_from(FAMILIES)))
        for flag in FREE:
            if draw(st.booleans()):
                out[flag] = draw(FLAGS[flag][0])
        return out
    out = {}
    for flag, (valid, invalid) in FLAGS.items():
        choice = draw(st.sampled_from(["absent", "absent", "valid", "valid", "invalid"]))
        if choice == "valid" or (choice == "invalid" and mode == "valid"):
            out[flag] = draw(valid)
        elif choice == "invalid":
            out[flag] = draw(invalid)
    return out


@st.composite
def invocations(draw) -> tuple[str, dict[str, str], tuple[str, ...], dict | None]:
    """(NAME, flags on the command line, switches, the ``--answers`` record or None)."""
    mode = draw(st.sampled_from(["family", "family", "valid", "mixed"]))
    name = draw(NAMES if mode == "mixed" else VALID_KEYS)
    flags = draw(answer_sets(mode))
    switches = tuple(s for s in SWITCHES if draw(st.integers(0, 3)) == 0)
    record = None
    if draw(st.integers(0, 3)) == 0:
        # Some answers move into a record, replayed with --answers; flags still override it.
        answers = sorted(set(flags) - {"format"})  # --format is not an answer
        moved = draw(st.lists(st.sampled_from(answers), unique=True)) if answers else []
        recorded = {"name": name, **{m.replace("-", "_"): flags.pop(m) for m in moved}}
        record = {**RECORD_HEAD, "key": name, "answers": recorded}
    return name, flags, switches, record


# -- running one example -------------------------------------------------------------------------


def command_line(root: Path, outside: Path, invocation) -> list[str]:
    """``ffgen new NAME ...`` as a user types it; a NAME that starts with a dash goes after
    ``--`` (without it, click reads it as an option: see the report of issue 11)."""
    name, flags, switches, record = invocation
    dashed = name.startswith("-")
    args = ["new", *([] if dashed else [name]), "--yes", "--checkout", str(root)]
    for flag, value in flags.items():
        args += [f"--{flag}", value]
    args += [f"--{switch}" for switch in switches]
    if record is not None:
        path = outside / "answers.yml"
        path.write_text(yaml.safe_dump(record, allow_unicode=True), encoding="utf-8")
        args += ["--answers", str(path)]
    return [*args, "--", name] if dashed else args


def generated_key(name: str) -> str | None:
    try:
        return parse_name(name).key
    except UsageError:
        return None


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return create_sandbox(tmp_path_factory.mktemp("properties") / "checkout")


@settings(
    max_examples=35,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(invocations())
def test_new_works_or_refuses_cleanly(pristine: Path, invocation) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root, outside = Path(scratch) / "checkout", Path(scratch) / "outside"
        shutil.copytree(pristine, root, symlinks=True)
        outside.mkdir()
        args = command_line(root, outside, invocation)
        before = tree(root)
        result = CliRunner().invoke(app, args)
        event(f"exit {result.exit_code}")  # shown by --hypothesis-show-statistics
        shown = f"ffgen {' '.join(args)}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"traceback: {result.exception!r}\n{shown}"
        )
        assert "Traceback" not in result.output, shown
        if result.exit_code == 0:
            check_success(root, before, invocation, shown)
            return
        assert result.exit_code in (1, 2), shown
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), shown
        assert tree(root) == before, f"a refused run changed the tree\n{shown}"


def check_success(root: Path, before: dict[str, object], invocation, shown: str) -> None:
    name, _, switches, _ = invocation
    if "dry-run" in switches:
        assert tree(root) == before, f"--dry-run changed the tree\n{shown}"
        return
    key = generated_key(name)
    assert key is not None, f"exit 0 for a NAME parse_name refuses\n{shown}"
    assert (root / ".ffgen" / "answers" / f"{key}.yml").is_file(), shown
    errors = run_verify(CheckoutView(root)).errors
    assert not errors, f"verify found {[str(e) for e in errors]}\n{shown}"


# -- regressions the property found: NAMEs refused for the wrong reason, or not at all ----------


@pytest.mark.parametrize(
    ("name", "fragments"),
    [
        # Used to blame `--class-name 'MyTrainer'`, a flag the user never gave.
        ("my-trainer", ("NAME 'my-trainer' ends with 'trainer'", "use my", "--class-name")),
        ("trainer", ("NAME 'trainer' ends with 'trainer'", "choose another NAME")),
        ("x-training-arguments", ("ends with 'training-arguments'", "use x")),
        # Used to get as far as the conformance check: `trainer_type: yes` reads as `true`.
        ("yes", ("NAME 'yes' reads as a YAML boolean",)),
        ("off", ("YAML boolean",)),
        ("null", ("NAME 'null' reads as a YAML null",)),
        # Used to fail verify on `class BaseTrainer(BaseTrainer)`, or (offline) shadow the base.
        ("base", ("would name a class BaseTrainer", "Flow-Factory's own base class")),
        ("offline-flow-matching", ("OfflineFlowMatchingTrainingArguments",)),
    ],
)
def test_names_are_refused_for_their_own_reason(name: str, fragments: tuple[str, ...]) -> None:
    with pytest.raises(UsageError) as refused:
        parse_name(name)
    for fragment in fragments:
        assert fragment in str(refused.value)


def test_a_stem_that_shadows_a_base_class_is_refused_as_given() -> None:
    with pytest.raises(UsageError, match="--class-name 'Base' would name a class BaseTrainer"):
        parse_name("my-algo", class_name="Base")


def test_none_is_a_fine_name() -> None:
    # Its stem `None` is a keyword, but ffgen only ever writes NoneTrainer / NoneTrainingArguments
    # (it used to be refused as "--class-name 'None' is not a valid class stem").
    names = parse_name("none")
    assert (names.trainer_class, names.args_class) == ("NoneTrainer", "NoneTrainingArguments")
