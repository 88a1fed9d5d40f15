# Copyright 2026 The ffgen authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""The checklist every generated algorithm of this checkout runs.

Each ``tests/trainers/test_<module>.py`` subclasses the ``*Checks`` bases that fit its algorithm
and declares its facts as class attributes (registry key, classes, example config, contract,
components, ownership); the checks here read those facts. A check's docstring states the rule it
enforces.

Only the model (a one-parameter adapter) and the accelerator are fakes, with no GPU and CPU
tensors of a few elements. Everything the framework checks is a real instance of this checkout's
classes: the arguments (built from the example config), batches, condition and output states,
latent states holding exactly the adapter's components, component times, replay steps and step
outputs; the framework's own helpers (noising, reductions, state checks) run unpatched.

The exact-resume check builds the trainer with its own constructor, the fakes standing in for
model loading, saves exact state through the base trainer's checkpoint path at the cycle
boundaries of ``start()``, and resumes a fresh trainer configured with ``model.resume_path`` and
``resume_type: state``, as a run is. It needs a base trainer whose exact-state checkpoints the
fakes can go through (the sandbox's writes plain files); Flow-Factory's own resumes through
Accelerate's saved state, which fakes do not make.

The checks that start worker processes (one data-parallel and one sharded step, two CPU
processes over gloo) carry ``@pytest.mark.distributed``: ``pytest -m "not distributed"`` skips
exactly those. The marker is registered where pytest reads markers (this checkout's pytest
configuration) when that names it; otherwise this module registers it as it is imported, before
any check is marked, so neither a warning nor ``--strict-markers`` stops the suite. (A
``pytest_configure`` hook here would never run: pytest calls it in conftest files and plugins
only.)

Written by ``ffgen new`` with the first algorithm that uses it and removed with the last one;
``ffgen update`` brings it to today's templates and keeps your edits.
"""

import copy
import dataclasses
import importlib
import multiprocessing
from collections import defaultdict
from collections.abc import Mapping
from contextlib import contextmanager, nullcontext
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import pytest
import torch
import yaml
from torch.utils.data import DataLoader, DistributedSampler

from flow_factory.contracts import AcquisitionMode, MediaType
from flow_factory.data_utils.offline_dataset import (
    DecodedMedia,
    DemonstrationOutputBatch,
    OfflineBatch,
    PreferenceOutputBatch,
)
from flow_factory.data_utils.schema import NormalizedModelInput
from flow_factory.hparams import Arguments
from flow_factory.hparams.training_args import (
    get_training_args_class,
    list_registered_training_args,
)
from flow_factory.models.condition_state import PreparedConditionState
from flow_factory.models.output_state import (
    EncodedOutputState,
    GeometrySignature,
    MediaGeometrySignature,
)
from flow_factory.samples import (
    ComponentTimes,
    LatentState,
    MultiModalStepOutput,
    NoisedState,
    ReplayStep,
)
from flow_factory.trainers.abc import BaseTrainer
from flow_factory.trainers.execution import TrainingProgress, build_acquisition_driver
from flow_factory.trainers.registry import get_trainer_class, list_registered_trainers

ROOT = Path(__file__).resolve().parents[2]
CYCLES = 2
WINDOW = 2  # microsteps per optimizer step in these tests
# Training arguments every check relies on, set on the example's real arguments; an algorithm
# adds its own in ``OVERRIDES``.
COMMON_OVERRIDES = {
    "seed": 7,
    "max_epochs": CYCLES,
    "num_inner_epochs": 1,
    "per_device_batch_size": 2,
    "num_inference_steps": 2,
    "shuffle_samples": False,
}


DISTRIBUTED = "distributed"
DISTRIBUTED_HELP = "starts worker processes (two CPU ranks over gloo); skip: -m 'not distributed'"
EMA_DECAY = 0.5  # the fake adapter's EMA: ema = EMA_DECAY * ema + (1 - EMA_DECAY) * weight
TEACHER_WEIGHT = 1.0  # the weight of every teacher the fakes load
# Example config text -> its parsed form: parsed once, not once per check (most of a check's time)
_PARSED_EXAMPLES: dict[str, dict] = {}


def _register_distributed_marker():
    """Name ``distributed`` in the markers of the pytest run importing this module, unless its
    configuration already does. ``pytest.mark`` reads them from the run's configuration, which
    it keeps as ``_config`` (None outside a pytest run)."""
    config = getattr(pytest.mark, "_config", None)
    if config is None:
        return
    names = {line.split(":", 1)[0].strip() for line in config.getini("markers")}
    if DISTRIBUTED not in names:
        config.addinivalue_line("markers", f"{DISTRIBUTED}: {DISTRIBUTED_HELP}")


_register_distributed_marker()


def override(args, **values):
    """Set fields of a real arguments instance; each must be one of its dataclass fields."""
    names = {field.name for field in dataclasses.fields(args)}
    for name, value in values.items():
        assert name in names, f"{type(args).__name__} has no field {name!r}"
        setattr(args, name, value)


# ------------------------------------------------------------------ fakes (model, accelerator)


class FakeAccelerator:
    """CPU accelerator whose ``accumulate`` closes a window every ``WINDOW`` microsteps."""

    device = torch.device("cpu")
    is_main_process = True
    is_local_main_process = True
    process_index = 0
    num_processes = 1

    def __init__(self):
        self.sync_gradients = False
        self._microsteps = 0

    @contextmanager
    def accumulate(self, *models):
        self._microsteps += 1
        self.sync_gradients = self._microsteps % WINDOW == 0
        yield

    def backward(self, loss):
        loss.backward()

    def wait_for_everyone(self):
        pass


def _per_sample(value, like):
    """A ``(B,)`` coordinate shaped to broadcast over the component tensor ``like``."""
    return value.reshape(-1, *([1] * (like.ndim - 1)))


class FakeAdapter:
    """A one-parameter "model" over its components: velocity = weight * state, log-prob = weight
    per sample. It noises linearly to unit noise (x_t = (1 - t) x0 + t, target 1 - x0), and its
    per-sample reductions average each component's elements, then the components. Its hooks
    take and return what the framework's ``BaseAdapter`` hooks do. Its snapshots (the reference,
    and every named one, such as a teacher) are one number each, in ``frozen``."""

    offline_training_forward_overrides = {}

    def __init__(self, events, components, weight=0.0):
        self.events = events
        # What the model makes (times, encoded states) and what it declares (the framework's
        # checks read the declaration): the same unless a check changes the declaration.
        self.components = tuple(components)
        self.trajectory_component_order = self.components
        self.weight = torch.nn.Parameter(torch.tensor(float(weight)))
        self.frozen = {"reference": torch.tensor(0.0), "teacher": torch.tensor(0.0)}
        self.active = self.weight
        self.ema = self.weight.detach().clone()
        self.named = []  # the named snapshots (``add_named_parameters``), held in "teacher"
        self.target_module_map = {}
        self.scheduler = _FakeScheduler()
        self._variant_snapshots = ()
        self.fail_on_call = None
        self._prepared = 0

    # -- parameter scopes
    @contextmanager
    def _use(self, value):
        previous, self.active = self.active, value
        try:
            yield
        finally:
            self.active = previous

    def use_ref_parameters(self):
        return self._use(self.frozen["reference"])

    def use_named_parameters(self, name):
        return self._use(self.frozen["teacher"])

    def use_component_variant(self, variant_name):
        return nullcontext()

    # -- the loop
    def train(self, mode=True):
        return self

    def set_trajectory_seed(self, seed):
        self.events.append(f"seed:{seed}")

    def ema_step(self, step):
        self.events.append(f"ema:{step}")
        with torch.no_grad():
            self.ema = EMA_DECAY * self.ema + (1 - EMA_DECAY) * self.weight.detach()

    # -- named snapshots
    def add_named_parameters(self, name, target_components=None, device=None, overwrite=True):
        """Snapshot ``name``: a copy of the current weight (as the framework's is)."""
        if name not in self.named:
            self.named.append(name)
        self.frozen["teacher"] = self.weight.detach().clone()

    def list_named_parameters(self):
        return list(self.named)

    def get_trainable_parameters(self):
        return list(self._weights().values())

    # -- loading weights into the live slot (a trainer's own teacher loading uses these): any
    # path holds the teacher's weights, ``TEACHER_WEIGHT``
    def _resolve_checkpoint_path(self, path):
        return str(path)

    def _load_full_model(self, path, strict=True):
        with torch.no_grad():
            self.weight.fill_(TEACHER_WEIGHT)

    def _load_lora(self, path):
        self._load_full_model(path)

    # -- forward process (what the framework's noising helpers call)
    def build_training_component_times(self, primary_timesteps, *, batch=None):
        t = primary_timesteps.float()
        now = {name: t for name in self.components}
        end = {name: torch.zeros_like(t) for name in self.components}
        return ComponentTimes(timestep=now, next_timestep=end, sigma=now, next_sigma=end)

    def add_forward_process_noise(self, clean_state, times, *, generator=None):
        noise = {name: torch.ones_like(x) for name, x in clean_state.components.items()}
        return self.apply_forward_process_noise(clean_state, times, LatentState(noise))

    def apply_forward_process_noise(self, clean_state, times, noise):
        state, target = {}, {}
        for name, x in clean_state.components.items():
            t, unit = _per_sample(times.sigma[name], x), noise.components[name]
            state[name] = (1 - t) * x + t * unit
            target[name] = unit - x
        return NoisedState(
            state=LatentState(state), target_velocity=LatentState(target), noise=noise
        )

    def project_velocity_to_clean_state(self, state, times, velocity):
        """x0 = x_t - t v: the inverse of the linear noising."""
        return LatentState(
            {
                name: x - _per_sample(times.sigma[name], x) * velocity.components[name]
                for name, x in state.components.items()
            }
        )

    # -- forward and reductions
    def forward_state(
        self,
        *,
        batch,
        state,
        times,
        next_state=None,
        compute_log_prob=False,
        return_fields=(),
        noise_level=None,
        **kwargs,
    ):
        velocity = LatentState({name: self.active * x for name, x in state.components.items()})
        log_prob = self.active * torch.ones(next(iter(state.components.values())).shape[0])
        return MultiModalStepOutput(log_prob=log_prob, velocity=velocity)

    def reduce_flow_matching_objective_values(self, values, *, state=None):
        return self._per_sample_mean(values, state)

    def reduce_latent_values(self, values, *, active_numel=None, state=None):
        return self._per_sample_mean(values, state)

    def _per_sample_mean(self, values, state):
        """Like the framework's reductions: a non-empty mapping of component name to tensor, in
        the adapter's exact component order (a ``LatentState`` is refused)."""
        expected = tuple(self.trajectory_component_order)
        if not isinstance(values, Mapping) or not values:
            raise ValueError(
                "expected non-empty Mapping[str, torch.Tensor] for values, "
                f"received {type(values).__name__}"
            )
        if tuple(values) != expected or (state is not None and state.component_names != expected):
            received = (tuple(values), None if state is None else state.component_names)
            raise ValueError(f"expected values and state in component order {expected}, {received}")
        means = [values[name].flatten(1).mean(dim=1) for name in expected]
        return torch.stack(means).mean(dim=0)

    # -- dataset batches
    def prepare_condition_state(self, condition, generator=None):
        self._prepared += 1
        if self._prepared == self.fail_on_call:
            raise RuntimeError("injected batch failure")
        return PreparedConditionState(condition=condition, forward_context={}, output_context={})

    def encode_output_state(self, media_batch, condition, generator=None):
        """Each sample's one media payload ``(W,)`` becomes every component's row."""
        clean = torch.stack([media[0].payload for media in media_batch]).float()
        geometry = MediaGeometrySignature(type=MediaType.IMAGE, height=1, width=clean.shape[1])
        return EncodedOutputState(
            clean_state=LatentState({name: clean.clone() for name in self.components}),
            forward_context={},
            decode_context={},
            geometry_signatures=tuple(GeometrySignature(media=(geometry,)) for _ in media_batch),
        )

    # -- generation batches: ``batch["latents"]`` maps each component to its stacked latents
    def get_train_step_indices(self):
        return torch.tensor([0, 1])

    def get_replay_step(self, batch, step_index):
        return replay_step(LatentState(dict(batch["latents"])), batch["old_log_prob"])

    def get_terminal_state(self, batch):
        return LatentState(dict(batch["latents"]))

    # -- checkpoints: the trainable weight, in one file
    def save_checkpoint(
        self,
        save_directory,
        max_shard_size="5GB",
        dtype=torch.float32,
        save_ema=False,
        model_only=True,
        safe_serialization=True,
        variant=None,
        include_training_roles=False,
        **kwargs,
    ):
        self.events.append("save:model" if model_only else "save:state")
        Path(save_directory).mkdir(parents=True, exist_ok=True)
        torch.save(self.weight.detach().clone(), Path(save_directory) / "weight.pt")

    def load_checkpoint(self, path, strict=True, resume_type=None):
        with torch.no_grad():
            self.weight.copy_(torch.load(Path(path) / "weight.pt"))

    # -- what the checkout's exact-state checkpoint path reads from its adapter (private names
    # of this checkout's ``BaseAdapter``): trainable weights, EMA, each snapshot by name
    def _weights(self):
        return dict(getattr(self, "role_weights", None) or {"weight": self.weight})

    def _checkpoint_state_dict(self, include_training_roles=True):
        return {name: weight.detach().clone() for name, weight in self._weights().items()}

    def _load_checkpoint_state_dict(self, state, strict=True):
        weights = self._weights()
        if strict and set(state) != set(weights):
            raise ValueError(f"checkpoint weights {sorted(state)}, adapter {sorted(weights)}")
        with torch.no_grad():
            for name, weight in weights.items():
                weight.copy_(state[name])

    def _sandbox_named_state_dict(self, name):
        return {"weight": self.frozen[_snapshot_slot(name)].clone()}

    def _sandbox_load_named_state_dict(self, name, state):
        self.frozen[_snapshot_slot(name)] = state["weight"].clone()

    def _sandbox_ema_state_dict(self):
        return [self.ema.clone()]

    def _sandbox_load_ema_state_dict(self, state):
        self.ema = state[0].clone()


class _FakeScheduler:
    """What a trainer reads from the adapter's scheduler: two SDE steps per trajectory."""

    num_sde_steps = 2


def _snapshot_slot(name):
    """The ``frozen`` entry holding snapshot ``name`` (the checkout's reference is
    ``__reference__``; every named snapshot shares "teacher")."""
    return "reference" if name == "__reference__" else "teacher"


def _load_fake_teachers(adapter, teacher_paths, teacher_param_device, teacher_names=None):
    """Loads each teacher as a named snapshot of weight ``TEACHER_WEIGHT`` (no file read)."""
    given = list(teacher_names or []) + [None] * len(teacher_paths)
    names = [given[i] or f"opd_teacher_{i}" for i in range(len(teacher_paths))]
    for name in names:
        adapter.add_named_parameters(name)
        adapter.frozen["teacher"] = torch.tensor(TEACHER_WEIGHT)
    return names


def _assert_same_state(resumed, uninterrupted, when):
    """Each part of the resumed run's state equals the uninterrupted run's, naming the first
    that differs (this module is no test module: pytest does not rewrite its asserts)."""
    for part, value in uninterrupted.items():
        assert resumed[part] == value, f"{part} {when}: resumed {resumed[part]}, expected {value}"


def _accept(trainer_class, adapter_class):
    """Model loading's check of the adapter class, for the fake adapter: nothing to check."""


# ------------------------------------------------------------------ real states


def state_of(components, *rows):
    """A state of ``components``, each holding ``rows`` (one row of two elements per sample)."""
    values = torch.tensor(rows, dtype=torch.float32)
    return LatentState({name: values.clone() for name in components})


def two_components(latent, audio):
    """One sample whose two components, latent and audio, differ in shape and values."""
    return LatentState({"latent": torch.tensor([latent]), "audio": torch.tensor([audio])})


def replay_step(state, log_prob):
    """The stored transition of ``state`` from t = 0.5 to 0, with rollout log-prob ``log_prob``."""
    batch_size = next(iter(state.components.values())).shape[0]
    t = torch.full((batch_size,), 0.5)
    times = ComponentTimes(
        timestep={name: t for name in state.component_names},
        next_timestep={name: torch.zeros_like(t) for name in state.component_names},
    )
    return ReplayStep(state=state, next_state=state, times=times, log_prob=log_prob)


def grad_of(loss, trainer):
    trainer.adapter.weight.grad = None
    loss.backward()
    return float(trainer.adapter.weight.grad)


# ------------------------------------------------------------------ the algorithm's facts


class AlgorithmChecks:
    """What every algorithm declares, and the checks every algorithm passes."""

    KEY: ClassVar[str]
    Trainer: ClassVar[type]
    Args: ClassVar[type]
    TRAINER_PATH: ClassVar[str]
    EXAMPLE: ClassVar[str]  # relative to the checkout root
    CONTRACT: ClassVar[object]
    PARADIGM: ClassVar[str]
    HAS_REWARD: ClassVar[bool] = False
    COMPONENTS: ClassVar[tuple[str, ...]] = ("latent",)
    OVERRIDES: ClassVar[dict] = {}
    # The declared runtime children with ``ema_decay`` set: EMA, then what the run owns.
    RUNTIME_CHILDREN: ClassVar[tuple[str, ...]] = ("adapter_ema",)
    REQUIRES_REF_MODEL: ClassVar[bool] = False
    MODULE_FAKES: ClassVar[dict] = {}
    EXAMPLE_SETS: ClassVar[tuple[str, ...]] = ()  # training arguments the example must set

    # -- facts read from the checkout
    @classmethod
    def example(cls) -> dict:
        """The example config as ``yaml.safe_load`` reads it; a copy of its own each call."""
        text = (ROOT / cls.EXAMPLE).read_text(encoding="utf-8")
        if text not in _PARSED_EXAMPLES:
            _PARSED_EXAMPLES[text] = yaml.safe_load(text)
        return copy.deepcopy(_PARSED_EXAMPLES[text])

    @classmethod
    def example_args(cls):
        """The example's ``train:`` section, parsed by the generated arguments class."""
        args = cls.Args.from_dict(cls.example()["train"])
        assert isinstance(args, cls.Args)
        return args

    @classmethod
    def arguments(cls):
        """The example config as the real classes build it, with the overrides applied."""
        config = Arguments.from_dict(cls.example())
        override(config.training_args, **{**COMMON_OVERRIDES, **cls.OVERRIDES})
        override(config.log_args, save_freq=0)
        override(config.eval_args, eval_freq=0)
        return config

    @classmethod
    def trainer_module(cls):
        return importlib.import_module(cls.Trainer.__module__)

    def state(self, *rows):
        return state_of(self.COMPONENTS, *rows)

    # -- the trainer under test
    @pytest.fixture
    def trainer(self, monkeypatch):
        """The generated trainer without its constructor, wired to the fakes."""
        return type(self).build_trainer(monkeypatch)

    @classmethod
    def build_trainer(cls, monkeypatch):
        cls.fake_module_helpers(monkeypatch)
        config = cls.arguments()
        built = object.__new__(cls.Trainer)
        built.accelerator = FakeAccelerator()
        built.adapter = FakeAdapter([], cls.COMPONENTS)
        built.config = config
        built.training_args = config.training_args
        built.model_args = config.model_args
        built.log_args = config.log_args
        built.eval_args = config.eval_args
        built.progress = TrainingProgress()
        built.acquisition_driver = build_acquisition_driver(cls.Trainer.execution_contract)
        cls.equip(built)
        return built

    @classmethod
    def fake_module_helpers(cls, monkeypatch):
        module = cls.trainer_module()
        for name, fake in cls.MODULE_FAKES.items():
            if hasattr(module, name):
                monkeypatch.setattr(module, name, fake)

    @classmethod
    def equip(cls, built):
        """What model loading (``_initialization``) gives a trainer, from the fakes: an AdamW
        over the fake's weights (one group per weight), and what the acquisition needs."""
        events = built.events = built.adapter.events
        built.windows = []
        built.model_bundle = object()
        groups = [{"params": [w], "role_name": n} for n, w in built.adapter._weights().items()]
        built.optimizer = torch.optim.AdamW(groups, lr=0.1)
        built.autocast = nullcontext
        built._loss_info = defaultdict(list)
        built.num_train_timesteps = 2
        built.log_data = lambda data, step: None
        dataset = cls.Trainer.execution_contract.acquisition is AcquisitionMode.DATASET

        def apply_optimizer_step(loss_info):
            built.windows.append(len(loss_info["loss"]))
            events.append("step")
            built.optimizer.step()
            built.optimizer.zero_grad(set_to_none=True)
            if dataset:  # the base trainer steps EMA per optimizer step on dataset runs
                built.adapter.ema_step(step=built.step)
            built.step += 1
            return defaultdict(list)

        built._apply_optimizer_step = apply_optimizer_step
        cls.wire(built, events)

    @classmethod
    def wire(cls, built, events):
        """What the acquisition adds to the built trainer (none here)."""

    # -- registries, contract, paradigm, hooks
    def test_registries_resolve_the_key_to_the_generated_classes(self):
        """Rule: both registry keys resolve to the generated classes before any loading."""
        assert self.KEY in list_registered_training_args()
        assert self.KEY in list_registered_trainers()
        assert get_training_args_class(self.KEY) is self.Args
        assert get_trainer_class(self.KEY) is self.Trainer
        assert list_registered_trainers()[self.KEY] == self.TRAINER_PATH

    def test_contracts_match_and_are_the_expected_constant(self):
        """Rule: the arguments and the trainer declare the same execution-contract constant."""
        assert self.Args.execution_contract is self.CONTRACT
        assert self.Trainer.execution_contract is self.CONTRACT

    def test_paradigm(self):
        """Rule: the trainer declares its paradigm (coupled trainers refuse ODE dynamics)."""
        assert self.Trainer.paradigm == self.PARADIGM

    HOOK: ClassVar[str]  # the hook the contract selects: "optimize_batch" or "optimize"

    def test_hook_selection(self):
        """Rule: the trainer overrides exactly the hooks its contract selects, never the driver
        (``start()`` and the acquisition steps it calls)."""
        driver = (
            "start",
            "run_generation_acquisition",
            "_run_training_step",
            "train_on_dataset_batch",
            "prepare_feedback",
        )
        assert [name for name in driver if name in vars(self.Trainer)] == []
        other = "optimize" if self.HOOK == "optimize_batch" else "optimize_batch"
        assert getattr(self.Trainer, self.HOOK) is not getattr(BaseTrainer, self.HOOK)
        assert getattr(self.Trainer, other) is getattr(BaseTrainer, other)
        assert callable(getattr(self.Trainer, "sample", None)) is (self.HOOK == "optimize")
        object.__new__(self.Trainer)._validate_execution_hooks()

    def test_hook_validation_rejects_the_trainer_without_its_hook(self):
        """Rule: base hook validation refuses a copy of the trainer without its hook."""
        without_hook = type("WithoutHook", (self.Trainer,), {})
        setattr(without_hook, self.HOOK, getattr(BaseTrainer, self.HOOK))
        with pytest.raises(TypeError, match=self.HOOK):
            object.__new__(without_hook)._validate_execution_hooks()

    def test_example_config_selects_the_algorithm(self):
        """Rule: the example config selects this algorithm and its contract's feedback."""
        config = self.example()
        assert "execution_contract" not in config["train"]
        training_args = Arguments.from_dict(config).training_args
        assert isinstance(training_args, self.Args) and type(training_args) is self.Args
        self.Trainer.validate_training_arguments_contract(training_args)
        for name in self.EXAMPLE_SETS:
            assert getattr(training_args, name), f"the example must set {name}"
        if self.HAS_REWARD:
            assert config.get("rewards"), "runtime-reward contracts need training rewards"
        else:
            assert not config.get("rewards"), "this contract has no runtime feedback"
        if self.PARADIGM == "coupled":
            assert config["scheduler"]["dynamics_type"] in ("Flow-SDE", "Dance-SDE", "CPS")

    # -- checkpoints
    def test_model_only_checkpoint_restores_the_trained_weights_exactly(self, trainer, tmp_path):
        """Rule: with ``log.save_model_only`` a checkpoint holds the trainable weights, and loading
        it restores them bit for bit however far training moved on."""
        trainer.log_args.save_model_only = True
        trained, _ = self.sgd_step(trainer, rank=1)
        trainer.save_checkpoint(str(tmp_path), epoch=1)
        moved_on, _ = self.sgd_step(trainer, rank=1)
        assert trained != 0.0 and moved_on != trained
        trainer.load_checkpoint(str(tmp_path / "checkpoint-1"))
        assert float(trainer.adapter.weight.detach()) == trained
        assert trainer.events[-1:] == ["save:model"]

    def test_owned_snapshots_are_declared_runtime_children(self, trainer):
        """Rule: the snapshots this run owns (``RUNTIME_CHILDREN``) are declared runtime
        children, so an exact checkpoint saves and restores them."""
        trainer.training_args = self.Args.from_dict({**self.example()["train"], "ema_decay": 0.9})
        override(trainer.model_args, finetune_type="full", resume_path=None, resume_type=None)
        assert trainer.training_args.requires_ref_model is self.REQUIRES_REF_MODEL
        assert trainer._declared_runtime_child_names() == self.RUNTIME_CHILDREN

    # -- exact resume through the checkout's own checkpoint path
    @classmethod
    def resumable_trainer(cls, monkeypatch, save_dir, resume_path=None):
        """The trainer built by its own constructor (its ``__init__`` over ``BaseTrainer``'s),
        saving exact state at every cycle boundary; EMA on, and a full finetune where the
        algorithm keeps a reference, so each runtime child it can declare is declared. Model
        loading (``_initialization``) gives it the fakes (``equip``); the fake adapter is no
        ``BaseAdapter``, so model loading's check of the adapter class is left out. With
        ``resume_path`` it resumes exactly, configured before construction as a run is
        (``model.resume_path`` with ``resume_type: state``)."""
        cls.fake_module_helpers(monkeypatch)
        module = cls.trainer_module()
        if hasattr(module, "load_teachers"):
            monkeypatch.setattr(module, "load_teachers", _load_fake_teachers)
        monkeypatch.setattr(cls.Trainer, "_initialization", lambda trainer: cls.equip(trainer))
        monkeypatch.setattr(
            cls.Trainer, "validate_adapter_class_execution_contract", classmethod(_accept)
        )
        config = cls.arguments()
        override(config.training_args, ema_decay=EMA_DECAY)
        full = "full" if cls.REQUIRES_REF_MODEL else config.model_args.finetune_type
        resume = None if resume_path is None else str(resume_path)
        override(config.model_args, finetune_type=full, resume_path=resume)
        override(config.model_args, resume_type=None if resume is None else "state")
        override(config.log_args, save_freq=1, save_dir=str(save_dir), save_model_only=False)
        adapter = FakeAdapter([], cls.COMPONENTS)
        return cls.Trainer(accelerator=FakeAccelerator(), config=config, adapter=adapter)

    def run(self, trainer):
        """``start()`` for the configured number of cycles."""
        trainer.start()

    @staticmethod
    def resumable_state(trainer):
        """What the next step depends on, as plain values: the trainable weights, the
        optimizer's state, the progress counters, the EMA, each snapshot and each role's step
        counter."""
        adapter, coordinator = trainer.adapter, getattr(trainer, "role_optimization", None)
        optimizer = trainer.optimizer.state_dict()["state"]
        return {
            "weights": {name: float(w.detach()) for name, w in adapter._weights().items()},
            "optimizer": {
                key: {name: torch.as_tensor(v).tolist() for name, v in state.items()}
                for key, state in optimizer.items()
            },
            "progress": trainer.progress,
            "ema": float(adapter.ema),
            "snapshots": {name: float(value) for name, value in adapter.frozen.items()},
            "role steps": {r: s.step for r, s in getattr(coordinator, "roles", {}).items()},
        }

    def test_an_exact_resume_takes_the_uninterrupted_run_s_next_step(self, tmp_path, monkeypatch):
        """Rule: an exact-state checkpoint, written by the base trainer's own save at a cycle
        boundary of ``start()``, holds what the next step depends on: the weights, the
        optimizer, the progress counters and every declared runtime child (EMA, the reference
        and named snapshots, the role counters). A fresh trainer resumed from it has all of
        it back and then trains as the uninterrupted run did, to the same weights."""
        straight = self.resumable_trainer(monkeypatch, tmp_path)
        if "adapter_reference" in straight.runtime_state.child_names:
            straight.adapter.frozen["reference"] = torch.tensor(0.25)  # a fresh adapter's is 0
        saved, save = {}, straight.save_checkpoint

        def save_and_record(save_directory, epoch=None):
            path = Path(save_directory) / f"checkpoint-{epoch}"
            saved[epoch] = (path, self.resumable_state(straight))
            return save(save_directory, epoch=epoch)

        straight.save_checkpoint = save_and_record
        self.run(straight)
        path, at_save = saved[CYCLES - 1]
        resumed = self.resumable_trainer(monkeypatch, tmp_path / "resumed", resume_path=path)
        _assert_same_state(self.resumable_state(resumed), at_save, "came back from the checkpoint")
        self.run(resumed)
        end = self.resumable_state(straight)
        assert end["progress"].optimizer_step > at_save["progress"].optimizer_step
        _assert_same_state(self.resumable_state(resumed), end, "after the next steps")

    # -- distributed (two CPU processes)
    def rank_loss(self, trainer, rank):
        """The default objective on data that differs between ranks (each algorithm's own)."""
        raise NotImplementedError

    def sgd_step(self, trainer, rank, world_size=1):
        """One SGD step of the objective; with ``world_size > 1`` gradients are averaged first."""
        weight = trainer.adapter.weight
        weight.grad = None
        self.rank_loss(trainer, rank).backward()
        if world_size > 1:
            torch.distributed.all_reduce(weight.grad)
            weight.grad /= world_size
        grad = float(weight.grad)
        with torch.no_grad():
            weight -= 0.1 * weight.grad  # plain SGD
        return float(weight.detach()), grad

    def one_step(self, rank, world_size):
        """``sgd_step`` on a trainer of its own (each worker process builds one)."""
        patch = pytest.MonkeyPatch()
        try:
            return self.sgd_step(type(self).build_trainer(patch), rank, world_size)
        finally:
            patch.undo()

    @pytest.fixture
    def two_ranks(self, tmp_path_factory):
        """What each of two worker processes (gloo) saved after one data-parallel step, then
        one FSDP2 step, of the objective on its own data: ``{"ddp": (weight, grad), "fsdp":
        weight or None}``. They are started once per test class (the first check asking)."""
        checks = type(self)
        if checks not in _TWO_RANKS:
            _TWO_RANKS[checks] = _launch_two_ranks(checks, tmp_path_factory.mktemp("ranks"))
        return _TWO_RANKS[checks]

    @pytest.mark.distributed
    def test_two_processes_end_with_identical_weights(self, two_ranks):
        """Rule: under data parallelism (gloo, two CPU processes) the objective's gradients are
        averaged, so both ranks take the same step: the step of the mean gradient."""
        (weight0, grad0), (weight1, grad1) = (rank["ddp"] for rank in two_ranks)
        local = [self.one_step(rank, world_size=1) for rank in (0, 1)]
        assert local[0][1] != pytest.approx(local[1][1])  # the ranks saw different data
        assert weight0 == weight1 and grad0 == grad1
        assert grad0 == pytest.approx((local[0][1] + local[1][1]) / 2)

    @pytest.mark.distributed
    def test_a_sharded_step_matches_the_single_process_step(self, two_ranks):
        """Rule: under a sharded backend (FSDP2 ``fully_shard`` over a CPU mesh, gloo, two
        processes) one step of the objective updates the weights exactly as the single-process
        step of the mean gradient does."""
        if two_ranks[0]["fsdp"] is None:
            pytest.skip("this torch has no FSDP2 (torch.distributed.fsdp.fully_shard)")
        weights = [rank["fsdp"] for rank in two_ranks]
        local = [self.one_step(rank, world_size=1) for rank in (0, 1)]
        assert local[0][1] != pytest.approx(local[1][1])  # the ranks saw different data
        mean_step = -0.1 * (local[0][1] + local[1][1]) / 2  # from weight 0
        assert weights[0] == weights[1] == pytest.approx(mean_step)


_TWO_RANKS: dict[type, list] = {}  # per test class: what its two worker processes saved


def _launch_two_ranks(checks, out):
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("torch.distributed with the gloo backend is not available here")
    sharded = _import_fsdp2()  # here, so that the forked workers need not import it
    # fork (where the platform has it) starts the workers without re-importing torch
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    try:
        torch.multiprocessing.start_processes(
            _two_rank_worker,
            args=(checks, 2, str(out / "init"), str(out), sharded),
            nprocs=2,
            start_method=method,
        )
    except (OSError, PermissionError) as exc:
        pytest.skip(f"this platform cannot start worker processes: {exc}")
    return [torch.load(out / f"rank{rank}.pt") for rank in (0, 1)]


def _import_fsdp2():
    """Whether this torch has FSDP2; imports it, and what its first ``fully_shard`` loads."""
    if not hasattr(importlib.import_module("torch.distributed.fsdp"), "fully_shard"):
        return False
    importlib.import_module("torch.distributed.device_mesh")
    importlib.import_module("torch._dynamo")
    return True


class _ShardedWeight(torch.nn.Module):
    """The fake model's weight as a one-element parameter (``fully_shard`` refuses a 0-d one).
    Its forward computes a loss of the gathered weight, so FSDP2 gathers the weight for it and
    reduces the gradient across the ranks after its backward."""

    def __init__(self, value):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor([value]))

    def forward(self, loss_of):
        return loss_of(self.weight[0])


def _sharded_step(checks, rank, world_size):
    """One FSDP2 step of the objective on this rank's data; the updated (full) weight."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    patch = pytest.MonkeyPatch()
    try:
        trainer = checks.build_trainer(patch)
        adapter, original = trainer.adapter, trainer.adapter.weight
        module = _ShardedWeight(float(original.detach()))
        fully_shard(module, mesh=init_device_mesh("cpu", (world_size,)))

        def loss_of(weight):
            # Every reference to the trainable weight reads the gathered one.
            for holder in (vars(adapter), getattr(adapter, "role_weights", {})):
                for name, value in list(holder.items()):
                    if value is original:
                        holder[name] = weight
            return checks().rank_loss(trainer, rank)

        module(loss_of).backward()
        torch.optim.SGD(module.parameters(), lr=0.1).step()
        return float(module.weight.full_tensor().detach()[0])
    finally:
        patch.undo()


def _two_rank_worker(rank, checks, world_size, init_file, out_dir, sharded):
    torch.distributed.init_process_group(
        "gloo", init_method=f"file://{init_file}", rank=rank, world_size=world_size
    )
    try:
        result = {"ddp": checks().one_step(rank, world_size), "fsdp": None}
        if sharded:
            result["fsdp"] = _sharded_step(checks, rank, world_size)
        torch.save(result, Path(out_dir) / f"rank{rank}.pt")
    finally:
        torch.distributed.destroy_process_group()


# ------------------------------------------------------------------ dataset acquisition


def _media(values):
    return (DecodedMedia(type="image", path="x.json", payload=torch.tensor(values)),)


def _fixed_offline_timesteps(args, *, batch_size, device, generator=None):
    """Every offline timestep at t = 0.5 (the real draw's shape: one row per timestep)."""
    return torch.full((int(args.num_train_timesteps), batch_size), 0.5)


class DatasetChecks(AlgorithmChecks):
    """Dataset acquisition: batches from a loader, one data epoch per traversal."""

    HOOK = "optimize_batch"
    SUPERVISION: ClassVar[str] = "demonstration"  # or "preference"
    # The framework's timestep draws are random: this fixed one keeps the numbers exact.
    MODULE_FAKES = {"sample_offline_timesteps": _fixed_offline_timesteps}

    @classmethod
    def arguments(cls):
        config = super().arguments()
        override(config.training_args, num_train_timesteps=2)
        return config

    def batch(self, index):
        target = _media([0.0, 0.0])
        if self.SUPERVISION == "preference":
            output = PreferenceOutputBatch(
                chosen_media=(target,), rejected_media=(_media([1.0, 1.0]),)
            )
        else:
            output = DemonstrationOutputBatch(target_media=(target,))
        return OfflineBatch(
            condition={},
            condition_ids=(f"c{index}",),
            record_ids=(f"r{index}",),
            sources=("toy",),
            source_ids=torch.tensor([0]),
            model_inputs=(
                NormalizedModelInput(prompt="a red fox", negative_prompt=None, media=()),
            ),
            supervision_type=self.SUPERVISION,
            output=output,
            metadata_json=("{}",),
        )

    def loader(self, count=4):
        batches = [self.batch(index) for index in range(count)]
        sampler = DistributedSampler(batches, num_replicas=1, rank=0, shuffle=False)
        return DataLoader(batches, batch_size=1, sampler=sampler, collate_fn=lambda b: b[0])

    def run(self, trainer):
        trainer.dataloader = self.loader(count=4)
        trainer.start()

    def test_two_data_epochs_run_through_start_on_the_accumulation_cadence(self, trainer):
        """Rule: a data epoch is one full loader traversal, and the optimizer steps only when an
        explicit accumulation window of ``gradient_accumulation_steps`` microsteps closes."""
        trainer.dataloader = self.loader(count=4)
        trainer.start()
        assert trainer.progress.data_epoch == CYCLES
        assert trainer.windows == [WINDOW] * (CYCLES * 4 // WINDOW)
        assert trainer.progress.optimizer_step == len(trainer.windows)
        assert "sample" not in trainer.events and "seed" not in "".join(trainer.events)

    def test_no_partial_window_is_flushed(self, trainer):
        """Rule: a loader shorter than one window leaves its microsteps open (no partial flush)."""
        trainer.dataloader = self.loader(count=WINDOW - 1)
        trainer.training_args.max_epochs = 1
        trainer.start()
        assert trainer.windows == [] and trainer.progress.optimizer_step == 0
        assert len(trainer._loss_info["loss"]) == WINDOW - 1

    def test_clean_exhaustion_advances_data_epoch_exactly_once(self, trainer):
        """Rule: ``data_epoch`` advances once per exhausted loader, never per batch."""
        trainer.dataloader = self.loader(count=4)
        trainer.training_args.max_epochs = 1
        trainer.start()
        assert trainer.progress.data_epoch == 1

    def test_failed_batch_propagates_and_does_not_advance_data_epoch(self, trainer):
        """Rule: a batch that raises ends the run; the incomplete epoch is not published."""
        trainer.dataloader = self.loader(count=4)
        trainer.adapter.fail_on_call = 3
        with pytest.raises(RuntimeError, match="injected batch failure"):
            trainer.start()
        assert trainer.progress.data_epoch == 0
        assert trainer._acquisition_cycle_incomplete is True
        assert trainer.windows == [WINDOW]


# ------------------------------------------------------------------ generation acquisition


class GenerationChecks(AlgorithmChecks):
    """Generation acquisition: each cycle samples from the model, then optimizes."""

    HOOK = "optimize"

    @classmethod
    def wire(cls, built, events):
        def generate_samples(
            reward_buffer=None, compute_log_prob=False, trajectory_indices=None, **kwargs
        ):
            events.append("sample")
            return ["s0", "s1"]

        def batches(samples, per_device_batch_size):
            yield {
                "latents": state_of(cls.COMPONENTS, [0.0, 0.0], [1.0, 1.0]).components,
                "advantage": torch.tensor([1.0, -1.0]),
                "old_log_prob": torch.zeros(2),
            }

        built.reward_buffer = object()
        built.generate_samples = generate_samples
        built._iter_prefetched_batches = batches
        built._sample_timesteps = lambda batch_size, generator=None: torch.full(
            (2, batch_size), 0.5
        )
        built.prepare_feedback = lambda samples: events.append("feedback")

    def test_two_generation_cycles_run_through_start(self, trainer):
        """Rule: each cycle seeds, samples, scores (runtime reward only), optimizes, then steps
        EMA; a no-feedback contract never runs the reward stage."""
        trainer.start()
        cycle = ["sample", *(["feedback"] if self.HAS_REWARD else []), "step"]
        assert trainer.events == ["seed:7", *cycle, "ema:0", "seed:8", *cycle, "ema:1"]
        assert trainer.progress.rollout_iteration == CYCLES
        assert trainer.progress.optimizer_step == CYCLES
        assert trainer.windows == [WINDOW] * CYCLES


# ------------------------------------------------------------------ structured state


class StructuredChecks:
    """A structured state: two components (latent and audio) of different shapes. Mixed in
    before the acquisition base: ``class TestX(StructuredChecks, DatasetChecks)``."""

    COMPONENTS = ("latent", "audio")

    def test_structured_state_holds_exactly_the_adapter_components(self, trainer):
        """Rule: a structured state holds exactly the adapter's trajectory components, in its
        order (the framework's own state checks demand it): a missing or an unexpected component
        is refused, by name."""
        state = two_components([0.0, 0.0], [0.0, 0.0, 0.0])
        assert trainer._validate_structured_state(state, "two components") is state
        latent_only = LatentState({"latent": state.components["latent"]})
        with pytest.raises(ValueError, match=r"missing: \['audio'\]"):
            trainer._validate_structured_state(latent_only, "latent only")
        with_depth = LatentState({**state.components, "depth": torch.zeros(1, 4)})
        with pytest.raises(ValueError, match=r"unexpected: \['depth'\]"):
            trainer._validate_structured_state(with_depth, "with depth")
        swapped = LatentState({name: state.components[name] for name in reversed(self.COMPONENTS)})
        with pytest.raises(ValueError, match="order"):
            trainer._validate_structured_state(swapped, "swapped")

    def test_the_hook_refuses_an_undeclared_component_before_the_objective(self, trainer):
        """Rule: a state is validated where it enters the hook: a component the adapter does not
        declare is refused, by name, before any loss is computed."""
        trainer.adapter.trajectory_component_order = ("latent",)  # "audio" is now undeclared
        if isinstance(self, DatasetChecks):
            trainer.dataloader = self.loader(count=WINDOW)
        with pytest.raises(ValueError, match=r"unexpected: \['audio'\]"):
            trainer.start()
        assert not trainer._loss_info and trainer.windows == []


# ------------------------------------------------------------------ model neutrality


class ModelNeutralChecks:
    """A model-neutral objective (legacy state): it holds for any adapter's components."""

    # A second fake adapter's components: other names, order and count than ``COMPONENTS``.
    OTHER_COMPONENTS: ClassVar[tuple[str, ...]] = ("video", "audio")

    def test_the_objective_is_the_same_for_an_adapter_of_other_components(self, trainer):
        """Rule: the objective is model-neutral: a second fake adapter with other trajectory
        components (two against the one of ``COMPONENTS``, other names), holding the same values
        in each, gives the same loss and gradient."""
        other = type(f"{type(self).__name__}Other", (type(self),), {})
        other.COMPONENTS = self.OTHER_COMPONENTS
        patch = pytest.MonkeyPatch()
        try:
            second = other.build_trainer(patch)
            results = []
            for checks, built in ((self, trainer), (other(), second)):
                loss = checks.rank_loss(built, 1)
                results.append((float(loss.detach()), grad_of(loss, built)))
        finally:
            patch.undo()
        assert results[0] == pytest.approx(results[1])


# ------------------------------------------------------------------ record type


class RecordChecks:
    """A structured record type read from demonstration batches (``RECORD`` is the class)."""

    RECORD: ClassVar[type]

    def test_record_type_reads_a_demonstration_batch_and_is_frozen(self):
        """Rule: the record type reads demonstration batches only and is immutable."""
        target = DecodedMedia(type="image", path="assets/x.json", payload=torch.zeros(8))
        batch = OfflineBatch(
            condition={},
            condition_ids=("c0",),
            record_ids=("r0",),
            sources=("toy",),
            source_ids=torch.tensor([0]),
            model_inputs=(
                NormalizedModelInput(prompt="a red fox", negative_prompt=None, media=()),
            ),
            supervision_type="demonstration",
            output=DemonstrationOutputBatch(target_media=((target,),)),
            metadata_json=('{"index":0}',),
        )
        (record,) = self.RECORD.from_batch(batch)
        assert (record.record_id, record.source, record.prompt) == ("r0", "toy", "a red fox")
        assert record.target_media[0] is target and dict(record.metadata) == {"index": 0}
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.prompt = "changed"
        with pytest.raises(TypeError):
            record.metadata["index"] = 1
        with pytest.raises(ValueError, match="target media"):
            self.RECORD(record_id="r1", source="toy", prompt="a red fox", target_media=())
        preference = dataclasses.replace(
            batch,
            supervision_type="preference",
            output=PreferenceOutputBatch(chosen_media=((target,),), rejected_media=((target,),)),
        )
        with pytest.raises(TypeError, match="demonstration"):
            self.RECORD.from_batch(preference)


# ------------------------------------------------------------------ external teacher


class TeacherChecks:
    """An external frozen teacher, loaded once and restored (not reloaded) on exact resume."""

    def test_exact_resume_creates_a_teacher_placeholder_instead_of_loading_it(
        self, trainer, monkeypatch
    ):
        """Rule: a fresh run loads the external teacher; an exact (``state``) resume only
        creates a placeholder, which the checkpoint restores; both register the teacher's
        runtime child."""
        module = self.trainer_module()
        teacher = module.TEACHER_SNAPSHOT
        loaded, placeholders, children = [], [], []
        if hasattr(module, "load_teachers"):
            monkeypatch.setattr(
                module,
                "load_teachers",
                lambda adapter, paths, device, names=None: loaded.extend(paths),
            )
        else:
            trainer._load_teacher = loaded.append

        def add_named_parameters(name, target_components=None, device=None, overwrite=True):
            placeholders.append(name)

        trainer.adapter.add_named_parameters = add_named_parameters
        trainer.adapter.target_module_map = {"transformer": ["to_q"]}
        trainer._register_named_parameter_runtime_child = children.append
        override(trainer.training_args, teacher_path="teacher-weights", teacher_param_device="cpu")
        for resume_path, resume_type in ((None, None), ("checkpoint-1", "state")):
            override(
                trainer.model_args,
                resume_path=resume_path,
                resume_type=resume_type,
                finetune_type="lora",
            )
            trainer._initialize_snapshots()
        assert loaded == ["teacher-weights"]
        assert placeholders == [teacher]
        assert children == [teacher, teacher]


# ------------------------------------------------------------------ roles (multi-role)


class _Entries(list):
    """A list of the example's real optimizer entries, looked up as ``optimizers:`` is."""

    def get_by_name(self, name):
        return next((e for e in self if e.name == name), None)


class RoleChecks:
    """Multi-role ownership: ``ROLES`` in plan order, each with its ``CADENCE`` (optimizer steps
    per training step)."""

    ROLES: ClassVar[tuple[str, ...]]
    CADENCE: ClassVar[dict[str, int]]

    @classmethod
    def equip(cls, built):
        """The shared fakes plus the role coordinator over one weight per role (the primary
        role's is the fake's own weight)."""
        super().equip(built)
        adapter = built.adapter
        weights = getattr(adapter, "role_weights", None) or {
            role: adapter.weight if index == 0 else torch.nn.Parameter(torch.tensor(0.0))
            for index, role in enumerate(cls.ROLES)
        }
        # Each role's phase runs under its variant: route the velocity to that role's weight.
        adapter.role_weights = weights
        adapter.use_component_variant = lambda variant_name: adapter._use(weights[variant_name])
        built.role_optimization = _RoleCoordinator(built, weights, cls.ROLES[0])

    def test_roles_plan_and_optimizers_agree(self):
        """Rule: roles, the role update plan and the ``optimizers:`` entries agree."""
        args = self.example_args()
        assert args.required_trainable_roles == self.ROLES
        assert tuple(phase.role_name for phase in args.role_update_plan().phases) == self.ROLES
        assert tuple(entry["name"] for entry in self.example()["optimizers"]) == self.ROLES

    def test_role_plan_names_every_role_on_its_cadence(self):
        """Rule: the role plan names each required role, in order, with its cadence."""
        args = self.example_args()
        plan = args.role_update_plan()
        role_optimization = importlib.import_module("flow_factory.trainers.role_optimization")
        assert isinstance(plan, role_optimization.RoleUpdatePlan)
        assert [(p.role_name, p.repeats) for p in plan.phases] == list(self.CADENCE.items())
        assert args.required_trainable_roles == self.ROLES

    def test_every_role_has_a_default_optimizer_and_an_example_entry(self):
        """Rule: each role has a default optimizer (used when the config names none) and one
        example ``optimizers:`` entry with ``max_grad_norm`` and an ``optimizer`` kind."""
        module = importlib.import_module(self.Args.__module__)
        defaults = getattr(module, f"{self.KEY.replace('-', '_').upper()}_DEFAULT_OPTIMIZERS")
        assert tuple(entry.name for entry in defaults) == self.ROLES
        for entry in self.example()["optimizers"]:
            assert entry["optimizer"] in ("adamw", "muon") and entry["max_grad_norm"] > 0

    def test_a_role_missing_from_a_configured_list_is_refused_naming_it(self, trainer):
        """Rule: a config that names some roles must name each; the algorithm's defaults apply
        only when it names none. (The framework refuses such a config while parsing it, so the
        entries are the example's real ones in a stand-in list.)"""
        first = trainer.config.optimizer_args.get_by_name(self.ROLES[0])
        trainer.config = SimpleNamespace(optimizer_args=_Entries([first]))
        with pytest.raises(ValueError, match=f"no entry for role '{self.ROLES[1]}'"):
            trainer._optimizer_args_for_role(self.ROLES[1])
        default = dataclasses.replace(first, name="default")
        trainer.config = SimpleNamespace(optimizer_args=_Entries([default]))
        assert trainer._optimizer_args_for_role(self.ROLES[1]).name == self.ROLES[1]

    def test_roles_need_no_algorithm_runtime_child(self):
        """Rule: the framework's multirole child covers the roles; the algorithm declares only
        its own snapshots."""
        assert not set(self.ROLES) & set(self.Trainer.runtime_child_names)


class _RoleCoordinator:
    """Stands in for ``RoleOptimizationCoordinator``: each phase takes one plain SGD step of the
    active role's own weight (and refuses a phase that steps a different number of times)."""

    def __init__(self, trainer, weights, primary):
        self.trainer, self.weights, self.primary = trainer, weights, primary
        self.roles = {role: SimpleNamespace(step=0, last_grad_norm=None) for role in weights}
        self.stepped = []  # the role of every optimizer step, in order
        self._active, self._steps, self._microbatches = None, 0, 0

    @property
    def active_role_name(self):
        return self._active

    def state_dict(self):
        return {"role_steps": {role: state.step for role, state in self.roles.items()}}

    def load_state_dict(self, state_dict):
        for role, step in state_dict["role_steps"].items():
            self.roles[role].step = step

    @contextmanager
    def phase(self, role_name):
        assert self._active is None, "phases do not nest"
        assert all(w.grad is None for w in self.weights.values()), "stale gradients"
        self._active, self._steps, self._microbatches = role_name, 0, 0
        try:
            yield self.roles[role_name]
        finally:
            self._active = None
        assert self._steps == 1, f"phase {role_name} took {self._steps} optimizer steps"

    @contextmanager
    def microbatch(self):
        with self.trainer.accelerator.accumulate(self.trainer.model_bundle):
            self._microbatches += 1
            yield self.roles[self._active]

    def backward(self, loss):
        self.trainer.accelerator.backward(loss)

    def finish_microbatch(self):
        if not self.trainer.accelerator.sync_gradients:
            return False
        others = [r for r, w in self.weights.items() if r != self._active and w.grad is not None]
        assert not others, f"inactive roles {others} received gradients"
        weight = self.weights[self._active]
        self.roles[self._active].last_grad_norm = float(weight.grad.abs())
        with torch.no_grad():
            weight -= 0.1 * weight.grad
        weight.grad = None
        self.roles[self._active].step += 1
        self._steps += 1
        self.stepped.append(self._active)
        if self._active == self.primary:
            self.trainer.events.append("step")
            self.trainer.windows.append(self._microbatches)
        return True


class GeneratorCriticChecks(RoleChecks):
    """Two trained roles, a generator (the primary role: its steps are ``train.step``) and a
    critic, each stepped by the role coordinator on its own cadence."""

    @classmethod
    def roles_of(cls):
        module = cls.trainer_module()
        return module.GENERATOR_ROLE, module.CRITIC_ROLE

    @classmethod
    def equip(cls, built):
        """The shared fakes plus one weight per role: ``use_component_variant(role)`` routes the
        velocity to that role's weight, and the coordinator steps only the active one."""
        generator, _ = cls.roles_of()
        adapter = built.adapter
        adapter.role_weights = {
            role: adapter.weight if role == generator else torch.nn.Parameter(torch.tensor(0.0))
            for role in cls.ROLES
        }
        adapter.use_component_variant = lambda variant_name: adapter._use(
            adapter.role_weights[variant_name]
        )
        super().equip(built)

    def generator_loss(self, trainer):
        """The generator's loss on the two-sample batch of the fakes, at t = 0.5."""
        generator, _ = self.roles_of()
        clean = self.state([0.0, 0.0], [1.0, 1.0])
        with trainer.adapter.use_component_variant(generator):
            return trainer._generator_loss({}, clean, torch.full((2,), 0.5))

    def weights(self, trainer):
        return {role: float(w.detach()) for role, w in trainer.adapter.role_weights.items()}

    def test_each_role_changes_only_on_its_cadence(self, trainer):
        """Rule: per training step each role takes exactly its cadence of optimizer steps, in
        plan order, each phase changing only that role's weights."""
        generator, critic = self.roles_of()
        trainer.adapter.frozen["teacher"] = torch.tensor(1.0)
        trainer.adapter.role_weights[critic].data.fill_(0.5)
        before = self.weights(trainer)
        phases = trainer.training_args.role_update_plan().phases
        for phase in phases:
            for _ in range(phase.repeats):
                ahead = self.weights(trainer)
                trainer._train_role(phase.role_name, trainer._role_work_items(["s0", "s1"]))
                after = self.weights(trainer)
                changed = {role for role in self.ROLES if after[role] != ahead[role]}
                assert changed == {phase.role_name}
        assert trainer.role_optimization.stepped == [
            phase.role_name for phase in phases for _ in range(phase.repeats)
        ]
        steps = {role: trainer.role_optimization.roles[role].step for role in self.ROLES}
        assert steps == self.CADENCE
        assert trainer.step == self.CADENCE[generator]  # only the primary role's steps count
        assert self.weights(trainer) != before

    def test_optimize_runs_the_role_plan(self, trainer):
        """Rule: ``optimize`` runs the arguments' role plan: each role on its cadence."""
        trainer.adapter.frozen["teacher"] = torch.tensor(1.0)
        trainer.optimize(["s0", "s1"])
        counts = {role: trainer.role_optimization.stepped.count(role) for role in self.ROLES}
        assert counts == self.CADENCE
        assert trainer.windows == [WINDOW]  # one generator step over the whole rollout
