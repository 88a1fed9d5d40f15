"""The conformance check: rendered code against a (small, synthetic) Flow-Factory checkout."""

from __future__ import annotations

import dataclasses
import shutil
import textwrap
from pathlib import Path

import pytest

from ffgen.checkout.view import CheckoutView, Overlay
from ffgen.errors import RefusedError
from ffgen.generate.conformance.check import check_conformance, conformance_findings
from ffgen.generate.conformance.findings import HINT, Finding

FAITHFUL = Path(__file__).resolve().parents[1] / "fixtures" / "faithful_checkout"
PKG = "src/flow_factory"
TRAINER = f"{PKG}/trainers/rl/my_algo.py"
ARGS = f"{PKG}/hparams/training_args/my_algo.py"
TEST = "tests/trainers/test_my_algo.py"

CHECKOUT = {
    "__init__.py": "",
    "trainers/__init__.py": "",
    "trainers/rl/__init__.py": '"""RL trainers."""\n',
    "trainers/abc.py": """
        from abc import ABC

        from ..models.abc import BaseAdapter
        from .multirole import MultiRoleCheckpointingMixin


        class BaseTrainer(MultiRoleCheckpointingMixin, ABC):
            paradigm = None

            def __init__(self, accelerator, config, adapter: BaseAdapter) -> None:
                self.accelerator = accelerator
                self.training_args = config.training_args
                self.adapter = adapter

            @property
            def step(self) -> int:
                return 0

            @step.setter
            def step(self, value: int) -> None:
                pass

            def optimize(self, *args, **kwargs):
                raise NotImplementedError

            def _apply_optimizer_step(self, loss_info):
                return {}

            @staticmethod
            def _augment_batch_with_source(batch, source_name, source_id=None):
                return batch

            @classmethod
            def validate_training_arguments_contract(cls, training_args) -> None:
                pass

            def generate_samples(self, reward_buffer=None, compute_log_prob=False, **extra):
                return []
        """,
    # the mixin lives in another module and reaches BaseTrainer through a package re-export
    "trainers/multirole/__init__.py": "from .checkpointing import MultiRoleCheckpointingMixin\n",
    "trainers/multirole/checkpointing.py": """
        class MultiRoleCheckpointingMixin:
            def _register_multirole_checkpointing(self) -> None:
                self._multirole_checkpoint_registered = True

            def _primary_role(self) -> str:
                return "policy"
        """,
    "models/__init__.py": "",
    "models/abc.py": """
        from abc import ABC
        from contextlib import contextmanager


        class BaseAdapter(ABC):
            def __init__(self, config, accelerator) -> None:
                self.config = config
                self.pipeline = None

            def train(self, mode=True):
                return self

            def get_train_step_indices(self):
                return []

            def get_replay_step(self, batch, step_index):
                return None

            def add_named_parameters(
                self, name, target_components=None, device=None, overwrite=True
            ):
                pass

            @contextmanager
            def use_named_parameters(self, name):
                yield self

            def forward_state(self, *, batch, state, times, next_state=None, **kwargs):
                return None

            @property
            def scheduler(self):
                return None
        """,
    "hparams/__init__.py": "from .training_args import TrainingArguments\n",
    "hparams/abc.py": """
        from dataclasses import dataclass, field


        @dataclass(kw_only=True)
        class ArgABC:
            extra_kwargs: dict = field(default_factory=dict)
        """,
    "hparams/training_args/__init__.py": "from ._base import TrainingArguments\n",
    "hparams/training_args/_base.py": """
        from dataclasses import dataclass

        from ..abc import ArgABC


        @dataclass
        class TrainingArguments(ArgABC):
            num_inference_steps: int = 10

            def __post_init__(self) -> None:
                pass

            def get_num_train_timesteps(self, args) -> int:
                return self.num_inference_steps
        """,
    "samples/__init__.py": "from .trajectory import LatentState, ReplayStep\n",
    "samples/trajectory.py": """
        from dataclasses import dataclass
        from typing import Any


        @dataclass(frozen=True)
        class LatentState:
            latents: Any


        @dataclass(frozen=True)
        class ReplayStep:
            state: Any
            times: Any
            next_state: Any
            log_prob: Any = None
        """,
    "utils/__init__.py": "",
    "utils/trajectory_collector.py": """
        def compute_trajectory_indices(train_timestep_indices, num_inference_steps, *, final=True):
            return []
        """,
}

GOOD_TRAINER = """
    from typing import Any

    from ...samples import ReplayStep
    from ...utils.trajectory_collector import compute_trajectory_indices
    from ..abc import BaseTrainer


    class MyAlgoTrainer(BaseTrainer):
        paradigm = "coupled"

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.num_train_timesteps = self.adapter.scheduler.num_sde_steps

        def sample(self):
            indices = compute_trajectory_indices(
                train_timestep_indices=self.adapter.get_train_step_indices(),
                num_inference_steps=self.training_args.num_inference_steps,
            )
            return self.generate_samples(compute_log_prob=True, trajectory_indices=indices)

        def optimize(self, samples) -> None:
            adapter = self.adapter
            adapter.train()
            for step_index in adapter.get_train_step_indices():
                step = adapter.get_replay_step(samples, step_index)
                ReplayStep(step.state, step.times, next_state=step.next_state)
                self.step += 1
                self._last = self._apply_optimizer_step({})
            batch = self._augment_batch_with_source({}, "policy")
            self.validate_training_arguments_contract(self.training_args)
            self._register_multirole_checkpointing()
            print(self._multirole_checkpoint_registered, self._primary_role(), self._last, batch)
            print(self.__class__, self.__dict__, self.accelerator, self.num_train_timesteps)
            with adapter.use_named_parameters("teacher"):
                adapter.add_named_parameters("teacher", target_components=None)
    """

GOOD_ARGS = """
    from dataclasses import dataclass

    from ._base import TrainingArguments


    @dataclass
    class MyAlgoTrainingArguments(TrainingArguments):
        clip_range: float = 0.2

        def __post_init__(self) -> None:
            super().__post_init__()

        def get_num_train_timesteps(self, args) -> int:
            return int(self.num_inference_steps)
    """

GOOD_TEST = """
    from flow_factory.hparams.training_args import TrainingArguments
    from flow_factory.trainers.rl.my_algo import MyAlgoTrainer as Trainer
    from flow_factory.utils.trajectory_collector import compute_trajectory_indices


    def test_indices():
        assert compute_trajectory_indices([0], 10, final=False) == []
        assert TrainingArguments(num_inference_steps=4).num_inference_steps == 4
        Trainer.validate_training_arguments_contract(None)
    """


def write_checkout(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / PKG / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


@pytest.fixture
def checkout(tmp_path) -> Path:
    return write_checkout(tmp_path / "checkout", CHECKOUT)


def rendered(trainer: str = GOOD_TRAINER, args: str = GOOD_ARGS, test: str = GOOD_TEST):
    return {
        TRAINER: textwrap.dedent(trainer).lstrip(),
        ARGS: textwrap.dedent(args).lstrip(),
        TEST: textwrap.dedent(test).lstrip(),
        "examples/my_algo/lora/toy/default.yaml": "train: {}\n",  # not Python: ignored
    }


def findings(root: Path, files: dict[str, str]) -> list[Finding]:
    # as build_plan does: the rendered files are part of the checkout being checked
    return conformance_findings(Overlay(base=CheckoutView(root), changes=files), files)


def replaced(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


def only(found: list[Finding]) -> Finding:
    assert len(found) == 1, [f.message for f in found]
    return found[0]


def test_good_code_conforms(checkout):
    assert findings(checkout, rendered()) == []
    check_conformance(Overlay(base=CheckoutView(checkout), changes=rendered()), rendered())


def test_a_class_that_shadows_an_imported_name_is_refused(checkout):
    """A record class named like an import (``class ReplayStep`` after importing it) would
    replace the framework's class for the rest of the module."""
    trainer = replaced(GOOD_TRAINER, "class MyAlgoTrainer(BaseTrainer):",
                       "class ReplayStep:\n        pass\n\n\n    class MyAlgoTrainer(BaseTrainer):")
    found = [f for f in findings(checkout, rendered(trainer)) if f.member == "ReplayStep"]
    f = only(found)
    assert f.problem == "is defined as a class that shadows its import"
    assert "imported on line 3" in f.instead and f.line == 8


def test_unknown_self_member_is_refused(checkout):
    trainer = replaced(GOOD_TRAINER, "self._apply_optimizer_step({})", "self._loss_info")
    f = only(findings(checkout, rendered(trainer)))
    assert (f.path, f.member, f.problem) == (TRAINER, "BaseTrainer._loss_info", "is not defined")
    assert "MyAlgoTrainer" in f.instead and "BaseTrainer" in f.instead


def test_members_assigned_on_self_by_the_base_or_the_class_itself_count(checkout):
    # accelerator / training_args / adapter: BaseTrainer.__init__; _multirole_checkpoint_registered:
    # a mixin method; num_train_timesteps and _last: the generated class itself
    assert findings(checkout, rendered()) == []
    gone = dict(CHECKOUT)
    gone["trainers/abc.py"] = replaced(
        CHECKOUT["trainers/abc.py"], "self.accelerator = accelerator", "pass"
    )
    f = only(findings(write_checkout(checkout, gone), rendered()))
    assert f.member == "BaseTrainer.accelerator"


def test_a_property_counts_and_its_setter_keeps_it_a_property(checkout):
    trainer = replaced(
        GOOD_TRAINER, "self.step += 1", "print(self.step)\n                self.step()"
    )
    assert findings(checkout, rendered(trainer)) == []  # calling a property's value: unchecked
    args = replaced(
        GOOD_ARGS, "def get_num_train_timesteps", "@property\n        def get_num_train_timesteps"
    )
    f = only(findings(checkout, rendered(args=args)))
    assert f.problem == (
        "overrides TrainingArguments.get_num_train_timesteps as a property (the checkout's is a "
        "method)"
    )


def test_unknown_adapter_member_through_a_local_alias_is_refused(checkout):
    trainer = replaced(
        GOOD_TRAINER,
        "for step_index in adapter.get_train_step_indices():",
        "for step_index in range(adapter.num_replay_steps(samples)):",
    )
    f = only(findings(checkout, rendered(trainer)))
    assert f.member == "BaseAdapter.num_replay_steps"
    assert f.problem == "is not defined"
    assert f.line == 25  # the line of the call


def test_unknown_member_on_self_adapter_is_refused(checkout):
    trainer = replaced(GOOD_TRAINER, "self.adapter.scheduler.num_sde_steps", "self.adapter.sched")
    f = only(findings(checkout, rendered(trainer)))
    assert f.member == "BaseAdapter.sched"
    assert f.instead == "this checkout has scheduler"


def test_wrong_keyword_gives_the_one_line_message(checkout):
    trainer = replaced(GOOD_TRAINER, "target_components=None", 'source="teacher/path"')
    f = only(findings(checkout, rendered(trainer)))
    assert f.message == (
        "src/flow_factory/trainers/rl/my_algo.py: `BaseAdapter.add_named_parameters` takes no "
        "`source` (this checkout has add_named_parameters(self, name, target_components=None, "
        "device=None, overwrite=True)); this checkout's Flow-Factory differs from ffgen's templates"
    )
    assert "\n" not in f.message and f.message.endswith(HINT)
    with pytest.raises(RefusedError) as refused:
        check_conformance(
            Overlay(base=CheckoutView(checkout), changes=rendered(trainer)), rendered(trainer)
        )
    assert refused.value.message == f.message


def test_too_many_positionals_are_refused(checkout):
    trainer = replaced(
        GOOD_TRAINER,
        "get_replay_step(samples, step_index)",
        "get_replay_step(samples, step_index, 0)",
    )
    f = only(findings(checkout, rendered(trainer)))
    assert (f.member, f.problem) == (
        "BaseAdapter.get_replay_step",
        "takes 2 positional arguments, got 3",
    )
    assert f.instead == "this checkout has get_replay_step(self, batch, step_index)"


def test_a_missing_required_argument_is_refused(checkout):
    trainer = replaced(
        GOOD_TRAINER, "get_replay_step(samples, step_index)", "get_replay_step(samples)"
    )
    f = only(findings(checkout, rendered(trainer)))
    assert f.problem == "is called without its required `step_index`"


def test_keyword_only_parameters_and_splats(checkout):
    call = "adapter.forward_state(batch=samples, state=step, times=0)"
    good = replaced(GOOD_TRAINER, "adapter.train()", call)
    assert findings(checkout, rendered(good)) == []
    positional = replaced(GOOD_TRAINER, "adapter.train()", "adapter.forward_state(samples)")
    assert only(findings(checkout, rendered(positional))).problem == (
        "takes 0 positional arguments, got 1"
    )
    missing = replaced(GOOD_TRAINER, "adapter.train()", "adapter.forward_state(batch=samples)")
    assert "required `state`" in only(findings(checkout, rendered(missing))).problem
    # **kw may carry the required ones; *a may carry the positionals: only what shows is checked
    splat = replaced(GOOD_TRAINER, "adapter.train()", "adapter.forward_state(**vars(self))")
    assert findings(checkout, rendered(splat)) == []
    starred = replaced(
        GOOD_TRAINER, "get_replay_step(samples, step_index)", "get_replay_step(*samples)"
    )
    assert findings(checkout, rendered(starred)) == []
    bad_kw = replaced(
        GOOD_TRAINER, "get_replay_step(samples, step_index)", "get_replay_step(*samples, index=1)"
    )
    assert only(findings(checkout, rendered(bad_kw))).problem == "takes no `index`"


def test_staticmethod_and_classmethod_calls(checkout):
    static = replaced(
        GOOD_TRAINER, '_augment_batch_with_source({}, "policy")', "_augment_batch_with_source({})"
    )
    f = only(findings(checkout, rendered(static)))
    assert (f.member, f.problem) == (
        "BaseTrainer._augment_batch_with_source",
        "is called without its required `source_name`",
    )
    classmethod = replaced(
        GOOD_TRAINER,
        "validate_training_arguments_contract(self.training_args)",
        "validate_training_arguments_contract(self, self.training_args)",
    )
    assert only(findings(checkout, rendered(classmethod))).problem == (
        "takes 1 positional argument, got 2"
    )


def test_a_positional_only_parameter_passed_by_keyword_is_refused(checkout):
    posonly = dict(CHECKOUT)
    posonly["utils/trajectory_collector.py"] = replaced(
        CHECKOUT["utils/trajectory_collector.py"],
        "(train_timestep_indices, num_inference_steps, *, final=True)",
        "(train_timestep_indices, num_inference_steps, /, *, final=True)",
    )
    f = only(findings(write_checkout(checkout, posonly), rendered()))
    assert (f.member, f.problem) == (
        "flow_factory.utils.trajectory_collector.compute_trajectory_indices",
        "takes `train_timestep_indices` only positionally",
    )
    # a keyword the function has under no name is missing, whatever else is positional-only
    posonly["utils/trajectory_collector.py"] = replaced(
        CHECKOUT["utils/trajectory_collector.py"],
        "(train_timestep_indices, num_inference_steps, *, final=True)",
        "(indices, /, num_inference_steps, *, final=True)",
    )
    f = only(findings(write_checkout(checkout, posonly), rendered()))
    assert f.problem == "takes no `train_timestep_indices`"


def test_a_call_through_super_is_checked(checkout):
    args = replaced(GOOD_ARGS, "super().__post_init__()", "super().__post_init__(1)")
    f = only(findings(checkout, rendered(args=args)))
    assert (f.member, f.problem) == (
        "TrainingArguments.__post_init__",
        "takes 0 positional arguments, got 1",
    )
    args = replaced(GOOD_ARGS, "super().__post_init__()", "super().validate()")
    assert only(findings(checkout, rendered(args=args))).member == "TrainingArguments.validate"


def test_an_override_that_drops_a_parameter_is_refused(checkout):
    args = replaced(
        GOOD_ARGS, "get_num_train_timesteps(self, args)", "get_num_train_timesteps(self)"
    )
    f = only(findings(checkout, rendered(args=args)))
    assert f.message == (
        "src/flow_factory/hparams/training_args/my_algo.py: "
        "`MyAlgoTrainingArguments.get_num_train_timesteps` overrides "
        "TrainingArguments.get_num_train_timesteps without its `args` parameter (this checkout has "
        "get_num_train_timesteps(self, args)); " + HINT
    )


def test_overrides_that_keep_what_the_framework_passes_conform(checkout):
    # optimize(self, samples) narrows BaseTrainer.optimize(self, *args, **kwargs);
    # __init__(self, **kwargs) takes the base's parameters by name
    assert findings(checkout, rendered()) == []
    extra = replaced(GOOD_TRAINER, "def optimize(self, samples)", "def optimize(self, samples, k)")
    assert findings(checkout, rendered(extra)) == []  # the base takes *args
    args = replaced(GOOD_ARGS, "(self, args)", "(self, args, scale)")
    assert only(findings(checkout, rendered(args=args))).problem.endswith(
        "with `scale` required, which the framework does not pass"
    )
    args = replaced(GOOD_ARGS, "(self, args)", "(self, other)")
    assert "without its `args` parameter" in only(findings(checkout, rendered(args=args))).problem
    trainer = replaced(
        GOOD_TRAINER, "def optimize(self, samples)", "@staticmethod\n        def optimize(samples)"
    )
    assert "as a staticmethod" in only(findings(checkout, rendered(trainer))).problem


def test_an_import_of_a_missing_name_is_refused(checkout):
    trainer = replaced(
        GOOD_TRAINER,
        "from ...samples import ReplayStep",
        "from ...samples import NoisedState, ReplayStep",
    )
    f = only(findings(checkout, rendered(trainer)))
    assert (f.member, f.problem, f.line) == (
        "flow_factory.samples.NoisedState",
        "is not defined",
        3,
    )
    assert "different version of flow_factory.samples" in f.instead


def test_a_reexport_chain_that_breaks_names_the_module_that_lacks_it(checkout):
    broken = dict(CHECKOUT)
    broken["samples/__init__.py"] = "from .trajectory import LatentState, ReplayStep, NoisedState\n"
    f = only(
        findings(
            write_checkout(checkout, broken),
            rendered(replaced(GOOD_TRAINER, "import ReplayStep", "import NoisedState, ReplayStep")),
        )
    )
    assert f.member == "flow_factory.samples.NoisedState"
    assert "re-exports it from flow_factory.samples.trajectory" in f.instead


def test_relative_imports_resolve_against_the_files_path(checkout):
    # ``..abc`` from trainers/rl/ is trainers/abc; ``.abc`` would be trainers/rl/abc
    wrong = replaced(GOOD_TRAINER, "from ..abc import BaseTrainer", "from .abc import BaseTrainer")
    found = findings(checkout, rendered(wrong))
    assert found[0].member == "flow_factory.trainers.rl.abc"
    assert found[0].problem == "does not exist"
    assert "src/flow_factory/trainers/rl/abc.py" in found[0].instead
    missing = replaced(
        GOOD_TRAINER, "from ...utils.trajectory_collector", "from ...utils.trajectory"
    )
    f = only(findings(checkout, rendered(missing)))
    assert f.member == "flow_factory.utils.trajectory"


def test_a_submodule_counts_as_an_importable_name(checkout):
    trainer = replaced(
        GOOD_TRAINER,
        "from ..abc import BaseTrainer",
        "from ..abc import BaseTrainer\n    from ...utils import trajectory_collector",
    )
    assert findings(checkout, rendered(trainer)) == []


def test_calls_of_imported_functions_and_classes_are_checked(checkout):
    function = replaced(GOOD_TRAINER, "train_timestep_indices=", "train_step_indices=")
    f = only(findings(checkout, rendered(function)))
    assert f.member == "flow_factory.utils.trajectory_collector.compute_trajectory_indices"
    assert f.problem == "takes no `train_step_indices`"
    dataclass_call = replaced(GOOD_TRAINER, "next_state=step.next_state", "next=step.next_state")
    f = only(findings(checkout, rendered(dataclass_call)))
    assert (f.member, f.problem) == (
        "flow_factory.samples.trajectory.ReplayStep",
        "takes no `next`",
    )
    assert f.instead == ("this checkout has ReplayStep(state, times, next_state, log_prob=...)")


def test_generated_test_files_check_imports_and_imported_calls(checkout):
    test = replaced(
        GOOD_TEST,
        "compute_trajectory_indices([0], 10, final=False)",
        "compute_trajectory_indices([0], final=False)",
    )
    f = only(findings(checkout, rendered(test=test)))
    assert (f.path, f.problem) == (TEST, "is called without its required `num_inference_steps`")
    # an inherited kw_only dataclass field is keyword-only in the generated __init__
    test = replaced(
        GOOD_TEST, "TrainingArguments(num_inference_steps=4)", "TrainingArguments(4, {})"
    )
    assert only(findings(checkout, rendered(test=test))).problem == (
        "takes 1 positional argument, got 2"
    )
    test = replaced(GOOD_TEST, "import TrainingArguments", "import TrainingArgs")
    f = only(findings(checkout, rendered(test=test)))
    assert f.member == "flow_factory.hparams.training_args.TrainingArgs"


def test_object_members_and_probed_members_are_no_false_alarm(checkout):
    probed = replaced(
        GOOD_TRAINER,
        "adapter.train()",
        'if hasattr(adapter, "num_replay_steps"):\n                adapter.num_replay_steps()',
    )
    assert findings(checkout, rendered(probed)) == []
    rebound = replaced(
        GOOD_TRAINER, "adapter.train()", "adapter = samples\n            adapter.x()"
    )
    assert findings(checkout, rendered(rebound)) == []  # no longer only the adapter


def test_only_bases_from_outside_flow_factory_make_lookups_permissive(checkout):
    # ABC adds nothing: BaseAdapter(ABC) still refuses unknown members (see above); a base from
    # another library may define anything
    trainer = replaced(
        GOOD_TRAINER,
        "class MyAlgoTrainer(BaseTrainer):",
        "import torch\n\n\n    class MyAlgoTrainer(BaseTrainer, torch.nn.Module):",
    )
    trainer = replaced(trainer, "self._apply_optimizer_step({})", "self.parameters()")
    assert findings(checkout, rendered(trainer)) == []
    helper = replaced(
        GOOD_TRAINER,
        "class MyAlgoTrainer(BaseTrainer):",
        "class Helper:\n        def f(self):\n            return self.anything\n\n\n"
        "    class MyAlgoTrainer(BaseTrainer):",
    )
    assert findings(checkout, rendered(helper)) == []  # not derived from the checkout


def test_findings_are_all_reported_in_a_deterministic_order(checkout):
    trainer = replaced(GOOD_TRAINER, "adapter.train()", "adapter.gone()")
    trainer = replaced(
        trainer, "from ...samples import ReplayStep", "from ...samples import ReplayStep, Gone"
    )
    args = replaced(GOOD_ARGS, "(self, args)", "(self)")
    files = rendered(trainer, args)
    first = findings(checkout, files)
    assert [(f.path, f.line) for f in first] == sorted((f.path, f.line) for f in first)
    assert [f.member for f in first] == [
        "MyAlgoTrainingArguments.get_num_train_timesteps",
        "flow_factory.samples.Gone",
        "BaseAdapter.gone",
    ]
    assert findings(checkout, dict(reversed(list(files.items())))) == first
    assert len(set(first)) == len(first)  # values: equal by content, hashable
    with pytest.raises(dataclasses.FrozenInstanceError):
        first[0].line = 1  # type: ignore[misc]
    with pytest.raises(RefusedError, match="get_num_train_timesteps"):
        check_conformance(Overlay(base=CheckoutView(checkout), changes=files), files)


def test_each_checkout_module_is_read_once(checkout):
    reads: list[str] = []

    class Counting(CheckoutView):
        def read(self, rel):
            reads.append(rel)
            return super().read(rel)

    files = rendered(replaced(GOOD_TRAINER, "adapter.train()", "adapter.gone()"))
    conformance_findings(Overlay(base=Counting(checkout), changes=files), files)
    assert reads and len(reads) == len(set(reads))


def test_on_a_copy_of_the_faithful_fixture(tmp_path):
    root = tmp_path / "faithful"
    shutil.copytree(FAITHFUL, root)
    # the fixture's BaseAdapter is being filled in elsewhere: use a minimal one of our own
    write_checkout(root, {"models/__init__.py": "", "models/abc.py": CHECKOUT["models/abc.py"]})
    trainer = """
        from ..abc import BaseTrainer


        class MyAlgoTrainer(BaseTrainer):
            def sample(self):
                return self.generate_samples(compute_log_prob=True)

            def optimize(self, samples) -> None:
                self.adapter.train()
                self._declared_runtime_child_names()
                self._initialize_snapshots()
                self._loss_info = self._apply_optimizer_step({})
                print(self.step, self.training_args, self._loss_info)
        """
    files = {TRAINER: textwrap.dedent(trainer).lstrip()}
    assert findings(root, files) == []
    bad = {
        TRAINER: replaced(
            files[TRAINER], "_apply_optimizer_step({})", "_apply_optimizer_step({}, 1)"
        )
    }
    f = only(findings(root, bad))
    assert (f.member, f.problem) == (
        "BaseTrainer._apply_optimizer_step",
        "takes 1 positional argument, got 2",
    )
    assert f.instead == "this checkout has _apply_optimizer_step(self, loss_info)"
    mixin = {TRAINER: replaced(files[TRAINER], "_declared_runtime_child_names()", "_declared()")}
    assert only(findings(root, mixin)).member == "BaseTrainer._declared"


def test_new_refuses_a_template_that_calls_a_missing_member(runner, sandbox, monkeypatch):
    from ffgen.cli import app
    from ffgen.generate import render
    from tests.helpers import SPECS, snapshot

    real = render.render

    def with_unknown_member(template, ctx):
        text = real(template, ctx)
        if template == render.TRAINER_TEMPLATE:
            text += "\n    def _extra(self) -> None:\n        self.adapter.no_such_member()\n"
        return text

    monkeypatch.setattr(render, "render", with_unknown_member)
    before = snapshot(sandbox)
    args = ["new", "my-algo", "--checkout", str(sandbox), "--yes", "--model-type", "toy"]
    result = runner.invoke(app, [*args, *SPECS["grpo"]])
    assert result.exit_code == 1
    assert "`BaseAdapter.no_such_member` is not defined" in result.output
    assert HINT in " ".join(result.output.split())
    assert snapshot(sandbox) == before


# --- rule 6: types from the checkout's own annotations --------------------------------------------

TYPED = {
    "__init__.py": "",
    "samples/__init__.py": "from .trajectory import LatentState, NoisedState, StepOutput\n",
    "samples/trajectory.py": """
        from __future__ import annotations

        from dataclasses import dataclass
        from typing import Mapping, Optional, Tuple

        import torch


        @dataclass(frozen=True)
        class LatentState:
            components: Mapping[str, torch.Tensor]
            active_masks: Optional[Mapping[str, torch.Tensor]] = None

            @property
            def component_names(self) -> Tuple[str, ...]:
                return tuple(self.components)


        class MaskedState(LatentState):
            pass


        @dataclass(frozen=True)
        class NoisedState:
            state: LatentState
            target_velocity: "LatentState"


        @dataclass
        class StepOutput:
            velocity: Optional[LatentState] = None
            log_prob: Optional[torch.Tensor] = None


        class TensorDict(dict):
            pass


        class Record:
            def keys(self):
                return []

            def __getitem__(self, key):
                return None


        class Dynamic:
            def __getattr__(self, name):
                return name
        """,
    "models/__init__.py": "",
    "models/abc.py": """
        from __future__ import annotations

        from typing import Any, Mapping, Optional, Protocol, Tuple

        import torch

        from ..samples.trajectory import LatentState, NoisedState, StepOutput


        class Scorer(Protocol):
            def score(self, x) -> float: ...


        class BaseAdapter:
            def __init__(self, config) -> None:
                self.config = config

            def forward_state(self, state: LatentState) -> StepOutput: ...

            def noised(self, state: LatentState) -> Tuple[torch.Tensor, NoisedState]: ...

            def reduce(
                self, values: Mapping[str, torch.Tensor], *, state: Optional[LatentState] = None
            ) -> torch.Tensor: ...

            def project(self, state: LatentState, velocity: "LatentState") -> LatentState: ...

            def cast(self, state: LatentState | torch.Tensor) -> torch.Tensor: ...

            def anything(self, value: Any, other) -> None: ...

            def judge(self, scorer: Scorer) -> None: ...

            def states(self) -> list[LatentState]: ...
        """,
    "trainers/__init__.py": "",
    "trainers/abc.py": """
        from ..models.abc import BaseAdapter


        class BaseTrainer:
            def __init__(self, adapter: BaseAdapter) -> None:
                self.adapter = adapter
        """,
    "hparams/__init__.py": "",
    "hparams/args.py": """
        from __future__ import annotations

        from dataclasses import dataclass


        @dataclass
        class TrainingArguments:
            seed: int = 0

            @classmethod
            def from_dict(cls, data) -> TrainingArguments:
                return cls(**data)


        @dataclass
        class Arguments:
            training_args: TrainingArguments

            @classmethod
            def from_dict(cls, data) -> "Arguments":
                return cls(TrainingArguments.from_dict(data))
        """,
    "utils/__init__.py": "",
    "utils/helpers.py": """
        from __future__ import annotations

        from ..samples.trajectory import LatentState


        def make_state(x) -> LatentState: ...


        def untyped(x): ...


        def batch_size(state: LatentState) -> int: ...
        """,
}

TYPED_TRAINER = """
    from typing import Any

    from ...samples.trajectory import Dynamic, LatentState, MaskedState, Record, TensorDict
    from ...utils.helpers import batch_size, make_state, untyped
    from ..abc import BaseTrainer


    class MyAlgoTrainer(BaseTrainer):
        def loss(self, batch, given: LatentState) -> Any:
            adapter = self.adapter
            state = make_state(batch)
            output = adapter.forward_state(state)
            velocity = output.velocity
            _, noised = adapter.noised(state)
            print(given.components, velocity.component_names, noised.target_velocity.components)
            values = {name: x**2 for name, x in state.components.items()}
            total = adapter.reduce(values, state=state)
            batch_size(adapter.project(noised.state, velocity))
            for index, item in enumerate(adapter.states()):
                print(index, item.active_masks)
            return _helper(adapter, state) + total


    def _helper(adapter: Any, state: LatentState) -> Any:
        return adapter.reduce({"latent": state.components["latent"]}, state=state)
    """

TYPED_ARGS = """
    from dataclasses import dataclass

    from ..args import TrainingArguments


    @dataclass
    class MyAlgoTrainingArguments(TrainingArguments):
        clip_range: float = 0.2
    """

TYPED_ARGS_PATH = f"{PKG}/hparams/training_args/my_algo.py"


@pytest.fixture
def typed(tmp_path) -> Path:
    return write_checkout(tmp_path / "typed", TYPED)


def typed_findings(root: Path, trainer: str = TYPED_TRAINER, test: str | None = None):
    files = {
        TRAINER: textwrap.dedent(trainer).lstrip(),
        TYPED_ARGS_PATH: textwrap.dedent(TYPED_ARGS).lstrip(),
    }
    if test is not None:
        files[TEST] = textwrap.dedent(test).lstrip()
    return findings(root, files)


def in_loss(extra: str) -> str:
    """The typed trainer with ``extra`` (lines of code) at the end of ``loss``."""
    lines = textwrap.indent(textwrap.dedent(extra).strip("\n"), " " * 12)
    end = "            return _helper(adapter, state) + total"
    return replaced(TYPED_TRAINER, end, f"{lines}\n            return 0")


def test_typed_code_conforms(typed):
    assert typed_findings(typed) == []


LATENT_STATE_MEMBERS = "this checkout's LatentState has active_masks, component_names, components"


@pytest.mark.parametrize(
    "use",
    [
        "state.detach()",  # a local bound from a function's return annotation
        "output.velocity.detach()",  # an annotated field of a typed value (Optional[X] is X)
        "velocity.detach()",  # ... bound to a local
        "noised.target_velocity.detach()",  # tuple unpacking; a quoted annotation
        "item.detach()",  # a loop over a typed list (through enumerate)
        "given.detach()",  # the method's own parameter annotation
        "LatentState({}).detach()",  # a constructor
        "adapter.project(state, state).detach()",  # a method's return annotation
        "(state if batch else given).detach()",  # both branches agree
    ],
)
def test_a_member_of_a_typed_value_must_exist(typed, use):
    f = only(typed_findings(typed, in_loss(use)))
    assert (f.member, f.problem, f.instead) == (
        "LatentState.detach",
        "is not defined",
        LATENT_STATE_MEMBERS,
    )
    assert f.message == (
        f"{TRAINER}: `LatentState.detach` is not defined ({LATENT_STATE_MEMBERS}); {HINT}"
    )


def test_a_method_call_on_a_typed_value_is_checked_against_its_signature(typed):
    trainer = in_loss("adapter.project(state).component_names")
    f = only(typed_findings(typed, trainer))
    assert (f.member, f.problem) == (
        "BaseAdapter.project",
        "is called without its required `velocity`",
    )


def test_an_argument_of_a_class_the_annotation_excludes_is_refused(typed):
    f = only(typed_findings(typed, in_loss("adapter.reduce(state, state=state)")))
    assert f.message == (
        f"{TRAINER}: `BaseAdapter.reduce` expects `values: Mapping[str, torch.Tensor]`, got "
        f"LatentState (this checkout's LatentState is not a Mapping); {HINT}"
    )
    assert f.line == 21  # the line of the argument
    # through self.adapter, by keyword, and into an imported function
    f = only(typed_findings(typed, in_loss("self.adapter.reduce(values=output)")))
    assert f.problem == "expects `values: Mapping[str, torch.Tensor]`, got StepOutput"
    f = only(typed_findings(typed, in_loss("batch_size(output)")))
    assert (f.member, f.problem, f.instead) == (
        "flow_factory.utils.helpers.batch_size",
        "expects `state: LatentState`, got StepOutput",
        "this checkout's StepOutput is not a LatentState",
    )
    f = only(typed_findings(typed, in_loss("adapter.cast(output)")))
    assert f.problem == "expects `state: LatentState | torch.Tensor`, got StepOutput"
    assert f.instead == "this checkout's StepOutput is not a LatentState or torch.Tensor"


def test_unknown_values_and_open_annotations_pass(typed):
    trainer = in_loss(
        """
        adapter.reduce(untyped(batch))  # the value's type is unknown
        adapter.reduce(batch, state=untyped(batch))
        adapter.anything(state, state)  # Any, and no annotation
        adapter.judge(state)  # a protocol: whatever fits it structurally
        adapter.cast(state)  # one member of the union
        """
    )
    assert typed_findings(typed, trainer) == []


def test_a_subclass_or_a_mapping_fits(typed):
    trainer = in_loss(
        """
        masked = MaskedState({})
        adapter.project(masked, masked).component_names  # a subclass where its base is expected
        adapter.reduce(TensorDict(), state=masked)  # derives from dict: may be a mapping
        adapter.reduce(Record())  # has the mapping protocol's keys and __getitem__
        adapter.reduce({"latent": 1}, state=state)  # a dict literal: unknown, passes
        """
    )
    assert typed_findings(typed, trainer) == []


def test_what_the_code_decides_itself_is_not_second_guessed(typed):
    trainer = in_loss(
        """
        if hasattr(state, "detach"):
            state.detach()
        if isinstance(given, dict):
            given.keys()
        other = make_state(batch)
        other = untyped(batch)  # bound to two things: unknown
        other.detach()
        Dynamic().anything  # __getattr__ answers any name
        """
    )
    assert typed_findings(typed, trainer) == []


def test_a_private_helper_takes_the_type_every_caller_passes(typed):
    # cause 2: the helper's adapter is annotated Any, but the only caller passes the adapter
    helper = replaced(
        TYPED_TRAINER, 'reduce({"latent": state.components["latent"]}', "reduce(state"
    )
    f = only(typed_findings(typed, helper))
    assert (f.member, f.problem, f.line) == (
        "BaseAdapter.reduce",
        "expects `values: Mapping[str, torch.Tensor]`, got LatentState",
        25,
    )
    # a helper also used as a value (or by another rendered file) may be called with anything
    end = "return _helper(adapter, state) + total"
    escaped = replaced(helper, end, f"print(_helper)\n            {end}")
    assert typed_findings(typed, escaped) == []
    other_file = "from flow_factory.trainers.rl.my_algo import _helper\n"
    assert typed_findings(typed, helper, test=other_file) == []


def test_a_value_typed_as_a_base_may_be_a_rendered_subclass(typed):
    # ``from_dict -> TrainingArguments`` called on the generated subclass gives that subclass;
    # a field annotated with the base may hold the generated subclass
    test = """
        from flow_factory.hparams.args import Arguments
        from flow_factory.hparams.training_args.my_algo import MyAlgoTrainingArguments


        def test_args():
            assert MyAlgoTrainingArguments.from_dict({}).clip_range == 0.2
            assert Arguments.from_dict({}).training_args.clip_range == 0.2
        """
    assert typed_findings(typed, test=test) == []
    unknown = test.replace(".training_args.clip_range", ".training_args.x")
    f = only(typed_findings(typed, test=unknown))
    assert (f.path, f.member) == (TEST, "TrainingArguments.x")
    assert f.instead == "this checkout's TrainingArguments has from_dict, seed"


def test_a_generated_test_may_use_stand_ins(typed):
    # a test's trainer carries a stand-in adapter, and its own subclasses stand in for a base;
    # the trainer itself is held to BaseAdapter (rule 3)
    test = """
        from flow_factory.trainers.rl.my_algo import MyAlgoTrainer
        from flow_factory.utils.helpers import make_state
        from flow_factory.samples.trajectory import LatentState


        class FakeState(LatentState):
            def detach(self):
                return self


        def test_stand_ins():
            trainer = MyAlgoTrainer(adapter=None)
            assert trainer.adapter.weights is None
            assert make_state(None).detach() is not None
        """
    assert typed_findings(typed, test=test) == []
    f = only(typed_findings(typed, in_loss("self.adapter.weights")))
    assert (f.member, f.problem) == ("BaseAdapter.weights", "is not defined")
    f = only(typed_findings(typed, test=test.replace("FakeState(LatentState)", "FakeState")))
    assert (f.path, f.member) == (TEST, "LatentState.detach")
