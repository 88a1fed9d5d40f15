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

The accelerator is a real ``accelerate.Accelerator`` (CPU, one process). Only the model (a
one-parameter adapter, its scheduler) and, for multi-role algorithms, the role coordinator over
it are fakes, each saying in its docstring why; CPU tensors of a few elements, no GPU and no
weights to load. Everything the framework checks is a real instance of this checkout's
classes: the arguments (built from the example config), batches, condition and output states,
latent states holding exactly the adapter's components, component times, replay steps and step
outputs; the framework's own helpers (noising, reductions, state checks) run unpatched.

The exact-resume check builds the trainer with its own constructor, the fakes standing in for
model loading, saves exact state through the base trainer's checkpoint path at the cycle
boundaries of ``start()``, and resumes a fresh trainer configured with ``model.resume_path`` and
``resume_type: state``, as a run is: the base trainer's checkpoint code runs unpatched against
the real accelerator (its process index, device, ``distributed_type``, ``project_configuration``
and barriers); only what the fake model writes and reads of its own weights is fake.

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
import json
import math
import multiprocessing
import re
import time
from collections import defaultdict
from collections.abc import Mapping
from contextlib import contextmanager, nullcontext
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import pytest
import torch
import yaml
from accelerate import Accelerator
from accelerate.state import AcceleratorState, GradientState
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


# ------------------------------------------------------------------ the accelerator (real)


def cpu_accelerator():
    """A real ``accelerate.Accelerator``: CPU, one process, closing an accumulation window every
    ``WINDOW`` microsteps. Its ``backward`` divides the loss by ``WINDOW``, as in a run."""
    return Accelerator(cpu=True, gradient_accumulation_steps=WINDOW)


# ------------------------------------------------------------------ fakes (the model)


def _per_sample(value, like):
    """A ``(B,)`` coordinate shaped to broadcast over the component tensor ``like``."""
    return value.reshape(-1, *([1] * (like.ndim - 1)))


class FakeAdapter:
    """A one-parameter "model" over its components: velocity = weight * state (plus the batch's
    ``prompt_embeds``, one number per sample, where it has one), log-prob = weight per sample.
    It noises linearly to unit noise (x_t = (1 - t) x0 + t, target 1 - x0), and its per-sample
    reductions average each component's elements, then the components. Its hooks
    take and return what the framework's ``BaseAdapter`` hooks do. Its snapshots (the reference,
    and every named one, such as a teacher) are one number each, in ``frozen``. Fake because a
    real adapter needs a pretrained pipeline's weights: this one makes every objective a formula
    of one number, which the checks compute by hand."""

    offline_training_forward_overrides: ClassVar[dict] = {}

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
        self.per_sample_log_prob = False  # the objective checks give each sample its own

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

    def rollout(self, *args, **kwargs):
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
        # The condition moves the prediction: a batch's ``prompt_embeds`` ((B,)) is added to it,
        # so an objective that reuses another batch's condition computes another loss.
        shift = batch.get("prompt_embeds") if isinstance(batch, Mapping) else None
        velocity = LatentState(
            {
                name: self.active * x + (0.0 if shift is None else _per_sample(shift, x))
                for name, x in state.components.items()
            }
        )
        first = next(iter(state.components.values()))
        scale = torch.ones(first.shape[0])
        if self.per_sample_log_prob:  # each sample's log-prob slope: 1 + its mean value
            scale = 1.0 + first.detach().flatten(1).mean(dim=1)
        mean = None
        if "next_state_mean" in return_fields:  # the Euler step to ``next_timestep``
            mean = LatentState(
                {
                    name: x
                    + _per_sample(times.next_timestep[name] - times.timestep[name], x)
                    * velocity.components[name]
                    for name, x in state.components.items()
                }
            )
        return MultiModalStepOutput(
            log_prob=self.active * scale, velocity=velocity, next_state_mean=mean
        )

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
    """What a trainer reads from the adapter's scheduler: two SDE steps per trajectory and the
    SDE noise level (the built-in GRPO replays at it). Fake because it belongs to the fake model
    (a real scheduler comes with a real pipeline)."""

    num_sde_steps = 2
    noise_level = 0.7


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


class _Absent:
    """An attribute the trainer does not have."""

    def __repr__(self):
        return "absent"


# What the trainer template itself keeps on ``self`` between microsteps (reset per window).
TRAINER_BOOKKEEPING = frozenset({"_loss_info"})


def _assert_kept_state_comes_back(kept, built, resumed):
    """Every attribute the algorithm's trainer changed on ``self`` by the checkpoint (``kept``
    against ``built``, just after construction) has its value back after the exact resume."""
    missing = _Absent()
    lost = [
        f"self.{name} is {value!r} at the checkpoint but {resumed.get(name, missing)!r} after "
        "the resume"
        for name, value in kept.items()
        if built.get(name, missing) != value and resumed.get(name, missing) != value
    ]
    assert not lost, (
        "the trainer keeps state on self across steps that its exact checkpoint does not hold: "
        + "; ".join(lost)
        + ". Save it with the checkpoint (a declared runtime child) or derive it from what the "
        "checkpoint holds."
    )


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


# ------------------------------------------------------------------ the objective's maths
# The objective checks read what an update did from the fake model's own definition, not from
# the objective: they hold for any objective, the family's or one rewritten inside the markers.

LR = 0.1  # every optimizer step of the objective checks: plain SGD at this rate
MOVED = 1e-6  # the least change of the trainable weight the checks count as a move
HALF = 0.5  # the time of every fake timestep draw


def fake_errors(weight, clean, shift=None, reference=None):
    """Each sample's flow-matching error under the fake model at time ``HALF``: the mean of
    ``(weight x_t + shift - (1 - x0)) ** 2`` over its elements, ``x_t = (1 - t) x0 + t``. With
    ``reference`` it is the gap to that model's velocity instead (distillation)."""
    clean = torch.as_tensor(clean, dtype=torch.float32).reshape(len(clean), -1)
    shift = torch.zeros(len(clean)) if shift is None else torch.as_tensor(shift).float()
    x_t = (1 - HALF) * clean + HALF
    target = 1 - clean if reference is None else reference * x_t + shift[:, None]
    return ((weight * x_t + shift[:, None] - target) ** 2).mean(dim=1)


def one_update(trainer, hook):
    """Run ``hook()`` (the trainer's own hook on a batch) as one optimizer step: the gradients
    of all its microsteps accumulate (a window that closes meanwhile takes no step), then one
    plain SGD step of ``LR`` is taken. (A role coordinator steps its roles by itself.) Returns
    the trainable weight before and after, and the loss of every microstep."""
    weight = trainer.adapter.weight
    before, losses = float(weight.detach()), []

    def hold(loss_info):
        losses.extend(float(value) for value in loss_info.get("loss", []))
        return defaultdict(list)

    trainer._apply_optimizer_step = hold
    hook()
    trainer._loss_info = hold(trainer._loss_info)
    with torch.no_grad():
        for trained in trainer.adapter._weights().values():
            if trained.grad is not None:
                trained -= LR * trained.grad
                trained.grad = None
    trainer.step += 1
    return before, float(weight.detach()), losses


def frozen_leaf(value):
    """A frozen snapshot that records a gradient reaching it (none may)."""
    return torch.tensor(float(value), requires_grad=True)


def example_geometry(checks):
    """The example's own batch geometry: ``per_device_batch_size`` and ``group_size``."""
    train = checks.example()["train"]
    return int(train.get("per_device_batch_size", 1)), int(train.get("group_size", 2) or 2)


class _NotData(Exception):
    """A value that is not plain data (numbers, strings, tensors and containers of them)."""


def _plain(value):
    """``value`` as plain data (tensors as lists); raises ``_NotData`` for anything else."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().tolist()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    raise _NotData(type(value).__name__)


def kept_state(trainer, names):
    """The trainer's own attributes among ``names`` that hold plain data, as plain data."""
    found = {}
    for name, value in vars(trainer).items():
        if name in names:
            try:
                found[name] = _plain(value)
            except _NotData:
                continue
    return found


def _module_state(module):
    """What a module-level cache of the trainer's module holds: the size of each of its
    containers, and of each ``functools`` cache."""
    sizes = {}
    for name, value in vars(module).items():
        if isinstance(value, dict | list | set):
            sizes[name] = len(value)
        elif callable(getattr(value, "cache_info", None)):
            sizes[name] = value.cache_info().currsize
    return sizes


def _is_scalar(value):
    """A number, or a one-element tensor: a statistic, not a batch's data."""
    if isinstance(value, torch.Tensor):
        return value.numel() == 1
    return isinstance(value, int | float) and not isinstance(value, bool)


def algorithm_names(module):
    """Every name the algorithm's module uses as ``self.NAME`` or spells as a string: what its
    trainer may keep on ``self``."""
    source = Path(module.__file__).read_text(encoding="utf-8")
    return set(re.findall(r"self\.(\w+)", source)) | set(re.findall(r"[\"'](\w+)[\"']", source))


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
    # The objective's documented value at policy == reference (DPO, KTO: log 2); None: none.
    REFERENCE_VALUE: ClassVar[float | None] = None

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
        assert isinstance(args, cls.Args), (
            f"the example's train: section parses to {type(args).__name__}, not {cls.Args.__name__}"
        )
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
    @pytest.fixture(autouse=True)
    def _fresh_accelerate_state(self):
        """Each check leaves accelerate's shared process and gradient state as it found it (they
        are singletons every ``Accelerator`` joins), resetting them as accelerate's own tests do."""
        yield
        AcceleratorState._reset_state(reset_partial_state=True)
        GradientState._reset_state()

    @pytest.fixture
    def trainer(self, monkeypatch):
        """The generated trainer without its constructor, wired to the fakes."""
        return type(self).build_trainer(monkeypatch)

    @classmethod
    def build_trainer(cls, monkeypatch):
        cls.fake_module_helpers(monkeypatch)
        config = cls.arguments()
        built = object.__new__(cls.Trainer)
        built.accelerator = cpu_accelerator()
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
        assert self.KEY in list_registered_training_args(), (
            f"no training arguments registered under {self.KEY!r}"
        )
        assert self.KEY in list_registered_trainers(), f"no trainer registered under {self.KEY!r}"
        assert get_training_args_class(self.KEY) is self.Args, (
            f"{self.KEY!r} resolves to another arguments class than {self.Args.__name__}"
        )
        assert get_trainer_class(self.KEY) is self.Trainer, (
            f"{self.KEY!r} resolves to another trainer class than {self.Trainer.__name__}"
        )
        assert list_registered_trainers()[self.KEY] == self.TRAINER_PATH, (
            f"the trainer registry names {list_registered_trainers()[self.KEY]!r} for "
            f"{self.KEY!r}, expected {self.TRAINER_PATH!r}"
        )

    def test_contracts_match_and_are_the_expected_constant(self):
        """Rule: the arguments and the trainer declare the same execution-contract constant."""
        assert self.Args.execution_contract is self.CONTRACT, (
            "the arguments class declares another execution contract than CONTRACT"
        )
        assert self.Trainer.execution_contract is self.CONTRACT, (
            "the trainer declares another execution contract than CONTRACT"
        )

    def test_paradigm(self):
        """Rule: the trainer declares its paradigm (coupled trainers refuse ODE dynamics)."""
        assert self.Trainer.paradigm == self.PARADIGM, (
            f"the trainer declares paradigm {self.Trainer.paradigm!r}, expected {self.PARADIGM!r}"
        )

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
        assert [name for name in driver if name in vars(self.Trainer)] == [], (
            f"the trainer overrides driver methods: "
            f"{[n for n in driver if n in vars(self.Trainer)]}"
        )
        other = "optimize" if self.HOOK == "optimize_batch" else "optimize_batch"
        assert getattr(self.Trainer, self.HOOK) is not getattr(BaseTrainer, self.HOOK), (
            f"the trainer does not override its contract's hook {self.HOOK}"
        )
        assert getattr(self.Trainer, other) is getattr(BaseTrainer, other), (
            f"the trainer overrides {other}, which its contract does not select"
        )
        assert callable(getattr(self.Trainer, "sample", None)) is (self.HOOK == "optimize"), (
            "a generation trainer defines sample(); a dataset trainer does not"
        )
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
        assert "execution_contract" not in config["train"], (
            "the example sets execution_contract: the algorithm declares it"
        )
        training_args = Arguments.from_dict(config).training_args
        assert isinstance(training_args, self.Args) and type(training_args) is self.Args, (
            f"the example selects {type(training_args).__name__}, not {self.Args.__name__}"
        )
        self.Trainer.validate_training_arguments_contract(training_args)
        for name in self.EXAMPLE_SETS:
            assert getattr(training_args, name), f"the example must set {name}"
        if self.HAS_REWARD:
            assert config.get("rewards"), "runtime-reward contracts need training rewards"
        else:
            assert not config.get("rewards"), "this contract has no runtime feedback"
        if self.PARADIGM == "coupled":
            assert config["scheduler"]["dynamics_type"] in ("Flow-SDE", "Dance-SDE", "CPS"), (
                "a coupled algorithm's example needs SDE dynamics"
            )

    # -- checkpoints
    def test_model_only_checkpoint_restores_the_trained_weights_exactly(self, trainer, tmp_path):
        """Rule: with ``log.save_model_only`` a checkpoint holds the trainable weights, and loading
        it restores them bit for bit however far training moved on."""
        trainer.log_args.save_model_only = True
        trained, _ = self.sgd_step(trainer, rank=1)
        trainer.save_checkpoint(str(tmp_path), epoch=1)
        moved_on, _ = self.sgd_step(trainer, rank=1)
        assert trained != 0.0 and moved_on != trained, (
            f"the objective's SGD steps did not move the weight (0 -> {trained} -> {moved_on})"
        )
        trainer.load_checkpoint(str(tmp_path / "checkpoint-1"))
        assert float(trainer.adapter.weight.detach()) == trained, (
            "loading the model-only checkpoint gave weight "
            f"{float(trainer.adapter.weight.detach())}, saved {trained}"
        )
        assert trainer.events[-1:] == ["save:model"], (
            f"a model-only save wrote {trainer.events[-1:]}, expected ['save:model']"
        )

    def test_owned_snapshots_are_declared_runtime_children(self, trainer):
        """Rule: the snapshots this run owns (``RUNTIME_CHILDREN``) are declared runtime
        children, so an exact checkpoint saves and restores them."""
        trainer.training_args = self.Args.from_dict({**self.example()["train"], "ema_decay": 0.9})
        override(trainer.model_args, finetune_type="full", resume_path=None, resume_type=None)
        assert trainer.training_args.requires_ref_model is self.REQUIRES_REF_MODEL, (
            f"requires_ref_model is {trainer.training_args.requires_ref_model}, expected "
            f"{self.REQUIRES_REF_MODEL}"
        )
        assert trainer._declared_runtime_child_names() == self.RUNTIME_CHILDREN, (
            f"declared runtime children {trainer._declared_runtime_child_names()}, expected "
            f"{self.RUNTIME_CHILDREN}"
        )

    # -- the objective: frozen snapshots, no stale state
    def update_on(self, trainer, index):
        """One update of the trainer's own hook on data ``index`` (``one_update``)."""
        raise NotImplementedError

    def test_no_state_carries_over_from_one_batch_to_the_next(self, trainer, monkeypatch):
        """Rule: an update on data 1 after one on data 0 (weights put back) is the update a
        fresh trainer makes on data 1: the objective keeps no target, condition or label of an
        earlier batch or cycle (in a plain attribute, through ``__dict__.setdefault`` or in a
        module-level cache). Scalar statistics the trainer keeps on ``self`` (a running mean)
        are given to the fresh trainer too: whether they survive a resume is the exact-resume
        check's business."""
        trainer.adapter.frozen["teacher"] = torch.tensor(TEACHER_WEIGHT)
        module = self.trainer_module()
        names, module_state = set(vars(trainer)), _module_state(module)
        try:
            self.update_on(trainer, 0)
            added = sorted(set(vars(trainer)) - names)
            changed = [n for n, v in _module_state(module).items() if module_state.get(n) != v]
            assert not changed, (
                f"an update changed the trainer module's {changed}: a module-level cache keeps "
                "the data of one batch for the next"
            )
            for trained in trainer.adapter._weights().values():
                trained.data.fill_(0.0)
            names = algorithm_names(module) - TRAINER_BOOKKEEPING
            statistics = {
                name: copy.deepcopy(value)
                for name, value in vars(trainer).items()
                if name in names and _is_scalar(value)
            }
            after = self.update_on(trainer, 1)
        except (RuntimeError, ValueError, TypeError) as error:
            raise AssertionError(
                f"an update after earlier ones (data 0, then data 1) failed: {error}. Does the "
                "objective keep data of an earlier batch (on self or in a module-level cache)?"
            ) from error
        fresh_trainer = type(self).build_trainer(monkeypatch)
        fresh_trainer.adapter.frozen["teacher"] = torch.tensor(TEACHER_WEIGHT)
        for name, value in statistics.items():
            setattr(fresh_trainer, name, value)
        fresh = self.update_on(fresh_trainer, 1)
        # (A role coordinator steps by itself: its microstep losses are not all seen here.)
        losses = after[2] == pytest.approx(fresh[2]) or not (after[2] and fresh[2])
        same = after[1] == pytest.approx(fresh[1]) and losses
        assert same, (
            f"an update on data 1 after one on data 0 gives weight {after[1]:.6g} and losses "
            f"{after[2]}, on a fresh trainer weight {fresh[1]:.6g} and losses {fresh[2]}: the "
            "objective reuses a target, condition or label of an earlier batch (the trainer "
            f"added {added or 'no attribute'} while training; or a module-level cache?)"
        )

    def check_direction(self, trainer, monkeypatch):
        """The direction rule of the acquisition (its base class says what it reads)."""
        raise NotImplementedError

    def test_one_update_moves_the_model_the_way_the_supervision_says(self, trainer, monkeypatch):
        """Rule: one optimizer step of the trainer's own hook, on data of the example's own
        geometry, moves the model the way the supervision says (``check_direction`` of the
        acquisition base says how it is read). A flipped sign or swapped arms fail here, saying
        which way was expected and what moved."""
        self.check_direction(trainer, monkeypatch)

    def test_the_reference_and_the_teacher_stay_frozen_and_get_no_gradient(
        self, trainer, monkeypatch
    ):
        """Rule: after an update the frozen reference and teacher snapshots are unchanged and no
        gradient reached them (their forwards run under ``torch.no_grad()``); a KL weight of
        the arguments is switched on so the reference is used. With ``REFERENCE_VALUE`` the
        objective takes it at policy == reference, and another value away from it."""
        args = trainer.training_args
        if self.REQUIRES_REF_MODEL and hasattr(args, "kl_beta"):
            override(args, kl_beta=0.5)
        frozen = {"reference": 0.25, "teacher": TEACHER_WEIGHT}
        trainer.adapter.frozen = {name: frozen_leaf(value) for name, value in frozen.items()}
        self.update_on(trainer, 0)
        for name, snapshot in trainer.adapter.frozen.items():
            assert snapshot.grad is None, (
                f"a gradient ({float(snapshot.grad):.4g}) reached the frozen {name}: run its "
                "forward under torch.no_grad() (and detach what it returns)"
            )
            assert float(snapshot.detach()) == frozen[name], (
                f"the update changed the frozen {name} from {frozen[name]} to {float(snapshot)}"
            )
        if self.REFERENCE_VALUE is None:
            return
        for reference, equal in ((0.0, True), (0.25, False)):
            built = type(self).build_trainer(monkeypatch)
            built.adapter.frozen["reference"] = torch.tensor(reference)
            first = self.update_on(built, 0)[2][0]
            assert (first == pytest.approx(self.REFERENCE_VALUE)) is equal, (
                f"at policy {'==' if equal else '!='} reference (weight 0, reference "
                f"{reference}) the objective should {'be' if equal else 'differ from'} its "
                f"documented value {self.REFERENCE_VALUE:.6g}; it is {first:.6g}"
                + ("" if equal else ": does it score the reference with the policy's weights?")
            )

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
        return cls.Trainer(accelerator=cpu_accelerator(), config=config, adapter=adapter)

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
        names = algorithm_names(self.trainer_module()) - TRAINER_BOOKKEEPING
        built = kept_state(straight, names)

        def save_and_record(save_directory, epoch=None):
            path = Path(save_directory) / f"checkpoint-{epoch}"
            saved[epoch] = (path, self.resumable_state(straight), kept_state(straight, names))
            return save(save_directory, epoch=epoch)

        straight.save_checkpoint = save_and_record
        self.run(straight)
        path, at_save, kept = saved[CYCLES - 1]
        resumed = self.resumable_trainer(monkeypatch, tmp_path / "resumed", resume_path=path)
        _assert_kept_state_comes_back(kept, built, kept_state(resumed, names))
        _assert_same_state(self.resumable_state(resumed), at_save, "came back from the checkpoint")
        self.run(resumed)
        end = self.resumable_state(straight)
        assert end["progress"].optimizer_step > at_save["progress"].optimizer_step, (
            "the uninterrupted run took no step after the checkpoint: nothing to compare"
        )
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
        # the ranks saw different data
        assert local[0][1] != pytest.approx(local[1][1]), (
            "the two ranks' data gave the same gradient: the check cannot tell them apart"
        )
        assert weight0 == weight1 and grad0 == grad1, (
            f"the ranks ended apart: weights {weight0} / {weight1}, gradients {grad0} / {grad1}"
        )
        assert grad0 == pytest.approx((local[0][1] + local[1][1]) / 2), (
            f"the data-parallel gradient {grad0} is not the mean of the ranks' own "
            f"{local[0][1]}, {local[1][1]}"
        )

    @pytest.mark.distributed
    def test_a_sharded_step_matches_the_single_process_step(self, two_ranks):
        """Rule: under a sharded backend (FSDP2 ``fully_shard`` over a CPU mesh, gloo, two
        processes) one step of the objective updates the weights exactly as the single-process
        step of the mean gradient does."""
        if two_ranks[0]["fsdp"] is None:
            pytest.skip("this torch has no FSDP2 (torch.distributed.fsdp.fully_shard)")
        weights = [rank["fsdp"] for rank in two_ranks]
        local = [self.one_step(rank, world_size=1) for rank in (0, 1)]
        # the ranks saw different data
        assert local[0][1] != pytest.approx(local[1][1]), (
            "the two ranks' data gave the same gradient: the check cannot tell them apart"
        )
        mean_step = -0.1 * (local[0][1] + local[1][1]) / 2  # from weight 0
        assert weights[0] == weights[1] == pytest.approx(mean_step), (
            f"the sharded step gave weights {weights}, the single-process mean step {mean_step}"
        )


_TWO_RANKS: dict[type, list] = {}  # per test class: what its two worker processes saved
TWO_RANK_TIMEOUT_S = 300.0  # two ranks take seconds; minutes mean they wait on each other


def _launch_two_ranks(checks, out):
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("torch.distributed with the gloo backend is not available here")
    sharded = _import_fsdp2()  # here, so that the forked workers need not import it
    # fork (where the platform has it) starts the workers without re-importing torch
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    try:
        workers = torch.multiprocessing.start_processes(
            _two_rank_worker,
            args=(checks, 2, str(out / "init"), str(out), sharded),
            nprocs=2,
            join=False,
            start_method=method,
        )
    except (OSError, PermissionError) as exc:
        pytest.skip(f"this platform cannot start worker processes: {exc}")
    _join_or_fail(workers, TWO_RANK_TIMEOUT_S)
    return [torch.load(out / f"rank{rank}.pt") for rank in (0, 1)]


def _join_or_fail(workers, timeout):
    """Wait for the two workers; a worker that hangs fails the check instead of the run."""
    deadline = time.monotonic() + timeout
    while not workers.join(timeout=1.0):
        if time.monotonic() > deadline:
            for process in workers.processes:
                process.kill()
            pytest.fail(
                f"the two worker processes did not finish within {timeout:.0f} s "
                "(a deadlock in a collective or in a forked thread pool)"
            )


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
    # A forked worker must not use the intra-op thread pool the parent may have started in
    # earlier tests: that pool does not survive fork, and its first parallel op would wait
    # forever. So it runs single-threaded, as torch's own DataLoader workers do.
    torch.set_num_threads(1)
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


def _payloads(media_rows):
    """The clean values of a batch's media, one row per sample."""
    return torch.stack([media[0].payload for media in media_rows]).float()


def _expect_move(before, after, what):
    assert abs(after - before) > MOVED, (
        f"one update on {what} did not move the model (weight stayed {before:.6g}): the "
        "objective has no gradient there"
    )


def sample_target(n):
    """Sample ``n``'s clean target value (every element): 0, 0.2, ..., 0.8, then again."""
    return 0.2 * (n % 5)


def sample_shift(n):
    """Sample ``n``'s condition (``prompt_embeds``): 0, 0.1, 0.2, then again."""
    return 0.1 * (n % 3)


def _fixed_offline_timesteps(args, *, batch_size, device, generator=None):
    """Every offline timestep at t = 0.5 (the real draw's shape: one row per timestep)."""
    return torch.full((int(args.num_train_timesteps), batch_size), 0.5)


class DatasetChecks(AlgorithmChecks):
    """Dataset acquisition: batches from a loader, one data epoch per traversal."""

    HOOK = "optimize_batch"
    SUPERVISION: ClassVar[str] = "demonstration"  # or "preference"
    # A record field (bool) that says whether a sample is desirable (True) or not: the
    # direction of the objective on it. None: the supervision alone gives the direction.
    DIRECTION: ClassVar[str | None] = None
    # The framework's timestep draws are random: this fixed one keeps the numbers exact.
    MODULE_FAKES: ClassVar[dict] = {"sample_offline_timesteps": _fixed_offline_timesteps}

    @classmethod
    def arguments(cls):
        config = super().arguments()
        override(config.training_args, num_train_timesteps=2)
        return config

    def metadata(self, index):
        """The metadata JSON object of sample ``index`` (a record's declared fields)."""
        return {}

    def batch(self, index, rows=1):
        """Offline batch ``index`` of ``rows`` samples. Sample ``n = index * rows + r`` has its own
        target (``sample_target(n)``), condition (``prompt_embeds``: ``sample_shift(n)``) and
        metadata, so no two neighbouring batches agree: an objective that keeps a target or a
        condition from an earlier batch computes another loss. Preference batches reject the
        target plus one."""
        numbers = [index * rows + row for row in range(rows)]
        targets = tuple(_media([sample_target(n)] * 2) for n in numbers)
        if self.SUPERVISION == "preference":
            rejected = tuple(_media([sample_target(n) + 1.0] * 2) for n in numbers)
            output = PreferenceOutputBatch(chosen_media=targets, rejected_media=rejected)
        else:
            output = DemonstrationOutputBatch(target_media=targets)
        return OfflineBatch(
            condition={"prompt_embeds": torch.tensor([sample_shift(n) for n in numbers])},
            condition_ids=tuple(f"c{n}" for n in numbers),
            record_ids=tuple(f"r{n}" for n in numbers),
            sources=("toy",) * rows,
            source_ids=torch.zeros(rows, dtype=torch.long),
            model_inputs=tuple(
                NormalizedModelInput(prompt=f"a red fox, take {n}", negative_prompt=None, media=())
                for n in numbers
            ),
            supervision_type=self.SUPERVISION,
            output=output,
            metadata_json=tuple(json.dumps(self.metadata(n)) for n in numbers),
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
        assert trainer.progress.data_epoch == CYCLES, (
            f"data_epoch is {trainer.progress.data_epoch} after {CYCLES} loader traversals"
        )
        assert trainer.windows == [WINDOW] * (CYCLES * 4 // WINDOW), (
            f"optimizer steps closed windows of {trainer.windows} microsteps, expected "
            f"{WINDOW} each"
        )
        assert trainer.progress.optimizer_step == len(trainer.windows), (
            f"optimizer_step {trainer.progress.optimizer_step} after {len(trainer.windows)} steps"
        )
        assert "sample" not in trainer.events and "seed" not in "".join(trainer.events), (
            f"a dataset run sampled or seeded rollouts: {trainer.events}"
        )

    def test_no_partial_window_is_flushed(self, trainer):
        """Rule: a loader shorter than one window leaves its microsteps open (no partial flush)."""
        trainer.dataloader = self.loader(count=WINDOW - 1)
        trainer.training_args.max_epochs = 1
        trainer.start()
        assert trainer.windows == [] and trainer.progress.optimizer_step == 0, (
            f"a partial window was flushed: steps over {trainer.windows} microsteps"
        )
        assert len(trainer._loss_info["loss"]) == WINDOW - 1, (
            f"{len(trainer._loss_info['loss'])} microsteps recorded, expected {WINDOW - 1} open"
        )

    def test_clean_exhaustion_advances_data_epoch_exactly_once(self, trainer):
        """Rule: ``data_epoch`` advances once per exhausted loader, never per batch."""
        trainer.dataloader = self.loader(count=4)
        trainer.training_args.max_epochs = 1
        trainer.start()
        assert trainer.progress.data_epoch == 1, (
            f"data_epoch is {trainer.progress.data_epoch} after one exhausted loader, expected 1"
        )

    def test_failed_batch_propagates_and_does_not_advance_data_epoch(self, trainer):
        """Rule: a batch that raises ends the run; the incomplete epoch is not published."""
        trainer.dataloader = self.loader(count=4)
        trainer.adapter.fail_on_call = 3
        with pytest.raises(RuntimeError, match="injected batch failure"):
            trainer.start()
        assert trainer.progress.data_epoch == 0, (
            f"the failed epoch was published: data_epoch {trainer.progress.data_epoch}"
        )
        assert trainer._acquisition_cycle_incomplete is True, (
            "the failed cycle is not marked incomplete"
        )
        assert trainer.windows == [WINDOW], (
            f"optimizer steps over {trainer.windows} microsteps, expected one of {WINDOW}"
        )

    # -- the objective's direction
    def update_on(self, trainer, index, label=None):
        """One update through ``optimize_batch`` on batch ``index`` of the example's batch size
        (``one_update``); with ``label``, every sample's ``DIRECTION`` field is set to it."""
        rows, _ = example_geometry(self)
        override(trainer.training_args, per_device_batch_size=rows)
        batch = self.batch(index, rows)
        if label is not None:
            metadata = tuple(
                json.dumps({**json.loads(text), self.DIRECTION: label})
                for text in batch.metadata_json
            )
            batch = dataclasses.replace(batch, metadata_json=metadata)
        return one_update(trainer, lambda: trainer.optimize_batch(batch))

    def check_direction(self, trainer, monkeypatch):
        """Dataset supervision, read from the fake model itself: the targets' error falls
        (demonstrations); the chosen arm's error falls against the rejected arm's (preference
        pairs); with a ``DIRECTION`` label, a desirable batch's error falls and an undesirable
        one's rises. One batch of the example's ``per_device_batch_size``."""
        rows, _ = example_geometry(self)
        batch = self.batch(0, rows)
        shift = batch.condition["prompt_embeds"]
        if self.SUPERVISION == "preference":
            chosen = _payloads(batch.output.chosen_media)
            rejected = _payloads(batch.output.rejected_media)
            before, after, _ = self.update_on(trainer, 0)
            _expect_move(before, after, "the preference pairs")
            lead = [  # how far the chosen arm is ahead of the rejected one
                float((fake_errors(w, rejected, shift) - fake_errors(w, chosen, shift)).mean())
                for w in (before, after)
            ]
            assert lead[1] > lead[0], (
                "expected the chosen arm to gain on the rejected one (the rejected error minus "
                f"the chosen error should grow); it went from {lead[0]:.6g} to {lead[1]:.6g} "
                f"(weight {before:.4g} -> {after:.4g}): are the arms swapped or the sign flipped?"
            )
            return
        targets = _payloads(batch.output.target_media)
        for label in (True, False) if self.DIRECTION else (None,):
            built = type(self).build_trainer(monkeypatch) if label is False else trainer
            before, after, _ = self.update_on(built, 0, label)
            what = {None: "the demonstrations", True: "desirable samples"}.get(
                label, "undesirable samples"
            )
            _expect_move(before, after, what)
            error = [float(fake_errors(w, targets, shift).mean()) for w in (before, after)]
            went = f"it went from {error[0]:.6g} to {error[1]:.6g} (weight {before:.4g} -> "
            went += f"{after:.4g})"
            if label is False:
                assert error[1] > error[0], (
                    f"expected the error of undesirable samples ({self.DIRECTION}=False) to rise; "
                    f"{went}: is the sign of the undesirable term flipped?"
                )
            else:
                assert error[1] < error[0], (
                    f"expected one update on {what} to lower their error; {went}: the objective "
                    "climbs its loss (a flipped sign?)"
                )


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
            # Each cycle's rollouts differ (the cycle number shifts them), as real ones do.
            later = 0.25 * built.cycle_index
            yield {
                "latents": state_of(cls.COMPONENTS, [later, 0.0], [1.0, 1.0 + later]).components,
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
        assert trainer.events == ["seed:7", *cycle, "ema:0", "seed:8", *cycle, "ema:1"], (
            f"the cycles ran {trainer.events}, expected seed, {cycle} and EMA per cycle"
        )
        assert trainer.progress.rollout_iteration == CYCLES, (
            f"rollout_iteration is {trainer.progress.rollout_iteration} after {CYCLES} cycles"
        )
        assert trainer.progress.optimizer_step == CYCLES, (
            f"optimizer_step is {trainer.progress.optimizer_step} after {CYCLES} cycles of one step"
        )
        assert trainer.windows == [WINDOW] * CYCLES, (
            f"optimizer steps over {trainer.windows} microsteps, expected {WINDOW} per cycle"
        )

    # -- the objective's direction
    def direction_samples(self, index, trainer):
        """One group of the example's ``group_size`` samples (an even number, at least two),
        alternating a better sample (x0 = 0, advantage +1) and a worse one (x0 = sqrt 2,
        advantage -1). At weight 0 their flow-matching errors pull the weight equally hard in
        opposite ways: an update that weighs them alike does not move it. ``index`` (another
        cycle's rollouts) shifts every value. A trainer whose roles a coordinator steps takes
        one optimizer step per phase here: it gets one micro-batch of them."""
        size, group = example_geometry(self)
        kinds = ((0.0, 1.0), (math.sqrt(2.0), -1.0))
        count = max(2, group + group % 2)
        if getattr(trainer, "role_optimization", None) is not None:
            count = min(count, size)
        return [
            {"clean": kinds[n % 2][0] + 0.3 * index, "advantage": kinds[n % 2][1]}
            for n in range(count)
        ]

    def update_on(self, trainer, index):
        """One update through ``optimize`` on ``direction_samples(index)``, in micro-batches of
        the example's ``per_device_batch_size`` (``one_update``); every sample its own
        log-prob slope."""
        size, _ = example_geometry(self)
        override(trainer.training_args, per_device_batch_size=size)
        trainer.adapter.per_sample_log_prob = True
        samples = self.direction_samples(index, trainer)
        components = self.COMPONENTS
        trainer._iter_prefetched_batches = lambda ordered, per_device_batch_size: _stacked(
            ordered, per_device_batch_size, components
        )
        return one_update(trainer, lambda: trainer.optimize(samples))

    def check_direction(self, trainer, monkeypatch):
        """Rollouts, read from the fake model itself. With a reward, the higher-advantage
        samples gain likelihood over the lower ones (coupled: the SDE log-prob; decoupled: minus
        the flow-matching error), in the example's own micro-batch and group sizes, so a
        geometry that cancels the advantages fails too. Without one (distillation), the
        student's velocity moves toward the frozen teacher's."""
        trainer.adapter.frozen["teacher"] = torch.tensor(TEACHER_WEIGHT)
        samples = self.direction_samples(0, trainer)
        clean = torch.tensor([[sample["clean"]] * 2 for sample in samples])
        before, after, _ = self.update_on(trainer, 0)
        if not self.HAS_REWARD:
            _expect_move(before, after, "the rollouts")
            gap = [
                float(fake_errors(w, clean, reference=TEACHER_WEIGHT).mean())
                for w in (before, after)
            ]
            assert gap[1] < gap[0], (
                "expected the student to move toward the teacher; its velocity gap to the "
                f"teacher went from {gap[0]:.6g} to {gap[1]:.6g} (weight {before:.4g} -> "
                f"{after:.4g}, teacher {TEACHER_WEIGHT}): is the objective's sign flipped?"
            )
            return
        size, group = example_geometry(self)
        geometry = f"the example's per_device_batch_size={size}, group_size={group}"
        assert abs(after - before) > MOVED, (
            "the advantages had no effect: one update on a group of better and worse samples did "
            f"not move the model (weight stayed {before:.6g}) with {geometry}. Samples the "
            "update weighs alike cancel here: are the advantage weights normalised within a "
            "micro-batch of one sample?"
        )
        advantages = torch.tensor([sample["advantage"] for sample in samples])
        if self.PARADIGM == "coupled":
            gains, kind = (after - before) * (1.0 + clean.mean(dim=1)), "log-prob"
        else:
            gains = fake_errors(before, clean) - fake_errors(after, clean)
            kind = "likelihood (minus the flow-matching error)"
        better, worse = (float(gains[advantages > 0].mean()), float(gains[advantages < 0].mean()))
        assert float((advantages * gains).sum()) > 0, (
            f"expected the higher-advantage samples to gain {kind} over the lower ones; they "
            f"gained {better:+.3g} against {worse:+.3g} (weight {before:.4g} -> {after:.4g}, "
            f"{geometry}): is the advantage's or the objective's sign flipped?"
        )


def _stacked(samples, size, components):
    """The direction samples in stacked batches of ``size``, as ``_iter_prefetched_batches``
    yields them: latents per component, advantages, and the rollout log-prob (the fake's at
    weight 0)."""
    for start in range(0, len(samples), size):
        chunk = samples[start : start + size]
        yield {
            "latents": state_of(components, *[[s["clean"]] * 2 for s in chunk]).components,
            "advantage": torch.tensor([s["advantage"] for s in chunk]),
            "old_log_prob": torch.zeros(len(chunk)),
        }


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
        assert trainer._validate_structured_state(state, "two components") is state, (
            "a valid structured state does not come back unchanged from its validation"
        )
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
        assert not trainer._loss_info and trainer.windows == [], (
            "a loss was computed before the undeclared component was refused"
        )


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
        assert results[0] == pytest.approx(results[1]), (
            f"(loss, gradient) {results[0]} with components {self.COMPONENTS}, "
            f"{results[1]} with {self.OTHER_COMPONENTS}"
        )


# ------------------------------------------------------------------ record type


class RecordChecks:
    """A structured record type read from demonstration batches (``RECORD`` is the class)."""

    RECORD: ClassVar[type]
    # A value of each field the record declares (read from a row's metadata): every fake row
    # carries them; the direction field (``DIRECTION``) alternates between True and False.
    RECORD_FIELDS: ClassVar[dict] = {}

    def metadata(self, index):
        fields = dict(self.RECORD_FIELDS)
        if getattr(self, "DIRECTION", None):
            fields[self.DIRECTION] = index % 2 == 0
        return {**super().metadata(index), **fields}

    def record_batch(self, metadata, target=None):
        """A one-row demonstration batch whose row has ``metadata``."""
        target = target or DecodedMedia(type="image", path="assets/x.json", payload=torch.zeros(8))
        return OfflineBatch(
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
            metadata_json=(json.dumps(metadata),),
        )

    def record(self, index, metadata):
        """The typed record of a one-row batch whose row has ``metadata``."""
        (record,) = self.RECORD.from_batch(self.record_batch(metadata))
        return record

    def test_record_type_reads_a_demonstration_batch_and_is_frozen(self):
        """Rule: the record type reads demonstration batches only and is immutable."""
        target = DecodedMedia(type="image", path="assets/x.json", payload=torch.zeros(8))
        metadata = {"index": 0, **self.RECORD_FIELDS}
        batch = self.record_batch(metadata, target)
        (record,) = self.RECORD.from_batch(batch)
        assert (record.record_id, record.source, record.prompt) == ("r0", "toy", "a red fox"), (
            "the record did not read its id, source and prompt from the batch"
        )
        assert record.target_media[0] is target and dict(record.metadata) == metadata, (
            "the record did not keep the batch's target media and metadata"
        )
        for name, value in self.RECORD_FIELDS.items():
            assert getattr(record, name) == value, f"field {name} was not read from the metadata"
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.prompt = "changed"
        with pytest.raises(TypeError):
            record.metadata["index"] = 1
        with pytest.raises(ValueError, match="target media"):
            self.RECORD(
                record_id="r1",
                source="toy",
                prompt="a red fox",
                target_media=(),
                **self.RECORD_FIELDS,
            )
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
        args = trainer.training_args
        if hasattr(args, "teachers"):  # DiffusionOPD's schema: a list of teacher entries
            teachers = [dataclasses.replace(args.teachers[0], path="teacher-weights")]
            override(args, teachers=teachers, teacher_param_device="cpu")
        else:
            override(args, teacher_path="teacher-weights", teacher_param_device="cpu")
        for resume_path, resume_type in ((None, None), ("checkpoint-1", "state")):
            override(
                trainer.model_args,
                resume_path=resume_path,
                resume_type=resume_type,
                finetune_type="lora",
            )
            trainer._initialize_snapshots()
        assert loaded == ["teacher-weights"], (
            f"teachers loaded: {loaded}; a fresh run loads one, an exact resume none"
        )
        assert placeholders == [teacher], (
            f"placeholders created: {placeholders}, expected [{teacher!r}] on the resume"
        )
        assert children == [teacher, teacher], (
            f"runtime children registered: {children}, expected {teacher!r} on both runs"
        )


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
        assert args.required_trainable_roles == self.ROLES, (
            f"required roles {args.required_trainable_roles}, expected {self.ROLES}"
        )
        assert tuple(phase.role_name for phase in args.role_update_plan().phases) == self.ROLES, (
            "the role update plan does not name the roles in order"
        )
        assert tuple(entry["name"] for entry in self.example()["optimizers"]) == self.ROLES, (
            "the example's optimizers: entries do not name the roles in order"
        )

    def test_role_plan_names_every_role_on_its_cadence(self):
        """Rule: the role plan names each required role, in order, with its cadence."""
        args = self.example_args()
        plan = args.role_update_plan()
        role_optimization = importlib.import_module("flow_factory.trainers.role_optimization")
        assert isinstance(plan, role_optimization.RoleUpdatePlan), (
            f"role_update_plan() gave a {type(plan).__name__}"
        )
        assert [(p.role_name, p.repeats) for p in plan.phases] == list(self.CADENCE.items()), (
            f"plan {[(p.role_name, p.repeats) for p in plan.phases]}, cadence {self.CADENCE}"
        )
        assert args.required_trainable_roles == self.ROLES, (
            f"required roles {args.required_trainable_roles}, expected {self.ROLES}"
        )

    def test_every_role_has_a_default_optimizer_and_an_example_entry(self):
        """Rule: each role has a default optimizer (used when the config names none) and one
        example ``optimizers:`` entry with ``max_grad_norm`` and an ``optimizer`` kind."""
        module = importlib.import_module(self.Args.__module__)
        defaults = getattr(module, f"{self.KEY.replace('-', '_').upper()}_DEFAULT_OPTIMIZERS")
        assert tuple(entry.name for entry in defaults) == self.ROLES, (
            f"default optimizers for {tuple(e.name for e in defaults)}, expected {self.ROLES}"
        )
        for entry in self.example()["optimizers"]:
            assert entry["optimizer"] in ("adamw", "muon") and entry["max_grad_norm"] > 0, (
                f"optimizer entry {entry['name']!r} needs an optimizer kind and max_grad_norm > 0"
            )

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
        assert trainer._optimizer_args_for_role(self.ROLES[1]).name == self.ROLES[1], (
            "a config naming only a default entry does not give each role its own"
        )

    def test_roles_need_no_algorithm_runtime_child(self):
        """Rule: the framework's multirole child covers the roles; the algorithm declares only
        its own snapshots."""
        assert not set(self.ROLES) & set(self.Trainer.runtime_child_names), (
            "a role is declared as an algorithm runtime child"
        )


class _RoleCoordinator:
    """Stands in for ``RoleOptimizationCoordinator``: each phase takes one plain SGD step of the
    active role's own weight (and refuses a phase that steps a different number of times).
    Fake because the role checks count which role stepped, in which order and over how many
    microbatches, and compute the weights a plain SGD step gives; the checkout's coordinator
    (AdamW over clipped gradients) keeps no such record. Its roles carry only ``step``, a member
    the interface gives every ``OptimizationRole``."""

    def __init__(self, trainer, weights, primary):
        self.trainer, self.weights, self.primary = trainer, weights, primary
        self.roles = {role: SimpleNamespace(step=0) for role in weights}
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
                assert changed == {phase.role_name}, (
                    f"the {phase.role_name} phase changed {changed}"
                )
        assert trainer.role_optimization.stepped == [
            phase.role_name for phase in phases for _ in range(phase.repeats)
        ], "the roles stepped out of plan order"
        steps = {role: trainer.role_optimization.roles[role].step for role in self.ROLES}
        assert steps == self.CADENCE, f"role steps {steps}, cadence {self.CADENCE}"
        # only the primary role's steps count
        assert trainer.step == self.CADENCE[generator], (
            f"train.step is {trainer.step}, expected the generator's {self.CADENCE[generator]}"
        )
        assert self.weights(trainer) != before, "no role weight changed over a training step"

    def test_optimize_runs_the_role_plan(self, trainer):
        """Rule: ``optimize`` runs the arguments' role plan: each role on its cadence."""
        trainer.adapter.frozen["teacher"] = torch.tensor(1.0)
        trainer.optimize(["s0", "s1"])
        counts = {role: trainer.role_optimization.stepped.count(role) for role in self.ROLES}
        assert counts == self.CADENCE, (
            f"optimize stepped the roles {counts} times, cadence {self.CADENCE}"
        )
        # one generator step over the whole rollout
        assert trainer.windows == [WINDOW], (
            f"optimizer steps over {trainer.windows} microsteps, expected one of {WINDOW}"
        )
