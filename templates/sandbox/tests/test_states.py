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

"""State types and state helpers refuse what Flow-Factory's refuse."""

from __future__ import annotations

from types import MappingProxyType, SimpleNamespace

import pytest
import torch

from flow_factory.contracts import MediaType
from flow_factory.models.condition_state import PreparedConditionState
from flow_factory.models.output_state import (
    EncodedOutputState,
    GeometrySignature,
    MediaGeometrySignature,
    validate_encoded_output_state,
)
from flow_factory.models.toy import TOY_PIPELINE_IO_CONTRACT, ToyAdapter
from flow_factory.samples import (
    BaseSample,
    ComponentTimes,
    LatentState,
    MultiModalStepOutput,
    NoisedState,
    ReplayStep,
)
from flow_factory.trainers.common.flow_matching import (
    build_noised_output_state,
    flow_matching_per_sample_loss,
    validate_preference_component_times,
)
from flow_factory.trainers.common.offline_batch import (
    bind_prepared_condition_output,
    move_condition_to_device,
)
from flow_factory.trainers.common.state_validation import (
    require_component_sigmas,
    require_latent_state,
    require_velocity_state,
    state_batch_size,
)


def _state(batch: int = 2, **extra: torch.Tensor) -> LatentState:
    return LatentState({"latent": torch.zeros(batch, 3), **extra})


def _times(t: torch.Tensor, sigma: bool = True) -> ComponentTimes:
    zeros = torch.zeros_like(t)
    if not sigma:
        return ComponentTimes(timestep={"latent": t}, next_timestep={"latent": zeros})
    return ComponentTimes({"latent": t}, {"latent": zeros}, {"latent": t}, {"latent": zeros})


def _adapter(order: tuple[str, ...] = ("latent",), **training: object) -> ToyAdapter:
    adapter = object.__new__(ToyAdapter)
    adapter.training_args = SimpleNamespace(**training)
    if order != ("latent",):
        adapter.trajectory_component_order = order
    return adapter


def _trainer(adapter: ToyAdapter | None = None) -> SimpleNamespace:
    return SimpleNamespace(adapter=adapter or _adapter())


def _encoded(clean: torch.Tensor, **fields: object) -> EncodedOutputState:
    geometry = GeometrySignature(media=(MediaGeometrySignature(MediaType.IMAGE, 1, 8),))
    values = {"clean_state": LatentState({"latent": clean}), "forward_context": {},
              "decode_context": {}, "geometry_signatures": (geometry,) * clean.shape[0]}
    return EncodedOutputState(**{**values, **fields})


# ----------------------------------------------------------------------------- LatentState
@pytest.mark.parametrize(
    ("components", "error", "message"),
    [
        (torch.zeros(2, 3), TypeError, "Mapping"),
        ({}, ValueError, "at least one component"),
        ({"": torch.zeros(2)}, ValueError, "non-empty string"),
        ({"latent": [0.0, 1.0]}, TypeError, r"torch.Tensor for LatentState.components\['latent'\]"),
    ],
)
def test_latent_state_needs_a_named_tensor_mapping(components, error, message):
    with pytest.raises(error, match=message):
        LatentState(components)


def test_latent_state_copies_its_mapping_and_exposes_only_the_real_members():
    source = {"latent": torch.zeros(2, 3)}
    state = LatentState(source)
    source["other"] = torch.zeros(2, 3)
    assert state.component_names == ("latent",)
    public = {name for name in dir(state) if not name.startswith("_")}
    assert public == {"components", "active_masks", "component_names"}


@pytest.mark.parametrize(
    ("masks", "error", "message"),
    [
        ({"other": torch.ones(2, 3, dtype=torch.bool)}, ValueError, "active_masks component order"),
        ({"latent": torch.ones(2, 3)}, TypeError, "dtype torch.bool"),
        ({"latent": torch.ones(2, dtype=torch.bool)}, ValueError, "broadcastable"),
        ({"latent": torch.ones(3, 3, dtype=torch.bool)}, ValueError, "batch size 2"),
    ],
)
def test_latent_state_checks_its_active_masks(masks, error, message):
    with pytest.raises(error, match=message):
        LatentState({"latent": torch.zeros(2, 3)}, active_masks=masks)


def test_latent_state_accepts_a_broadcastable_boolean_mask():
    mask = torch.tensor([[True], [False]])
    assert LatentState({"latent": torch.zeros(2, 3)}, active_masks={"latent": mask}).active_masks


# ----------------------------------------------------------------------------- ComponentTimes
def test_component_times_are_per_component_mappings():
    with pytest.raises(TypeError, match="Mapping"):
        ComponentTimes(timestep=torch.ones(2), next_timestep=torch.zeros(2))
    with pytest.raises(TypeError, match="next_timestep"):
        ComponentTimes(timestep={"latent": torch.ones(2)})
    with pytest.raises(ValueError, match="next_timestep component order"):
        ComponentTimes({"latent": torch.ones(2)}, {"audio": torch.zeros(2)})
    with pytest.raises(ValueError, match="sigma component order"):
        ComponentTimes({"latent": torch.ones(2)}, {"latent": torch.zeros(2)},
                       sigma={"audio": torch.ones(2)})


# ----------------------------------------------------------------------------- ReplayStep
def test_replay_step_checks_order_batch_and_log_probs():
    state, times = _state(), _times(torch.ones(2), sigma=False)
    with pytest.raises(ValueError, match="ReplayStep.next_state component order"):
        ReplayStep(state, LatentState({"audio": torch.zeros(2, 3)}), times)
    with pytest.raises(ValueError, match=r"ReplayStep.log_prob shape \(2,\)"):
        ReplayStep(state, state, times, log_prob=torch.zeros(2, 1))
    with pytest.raises(ValueError, match="ReplayStep.times.timestep"):
        ReplayStep(state, state, _times(torch.ones(3), sigma=False))
    with pytest.raises(ValueError, match="ReplayStep.component_log_probs"):
        ReplayStep(state, state, times, component_log_probs={"latent": torch.zeros(3)})
    terminal = ComponentTimes({"latent": torch.ones(2)}, {"latent": torch.tensor(0.0)})
    assert ReplayStep(state, state, terminal, log_prob=torch.zeros(2)).log_prob.shape == (2,)


# ----------------------------------------------------------------------------- step output
def test_step_output_fields_share_components_and_batch():
    with pytest.raises(ValueError, match="MultiModalStepOutput.velocity component order"):
        MultiModalStepOutput(next_state_mean=_state(), velocity=LatentState({"a": torch.zeros(2)}))
    with pytest.raises(ValueError, match="MultiModalStepOutput.velocity"):
        MultiModalStepOutput(next_state=_state(2), velocity=_state(3))
    with pytest.raises(ValueError, match="one value per sample"):
        MultiModalStepOutput(velocity=_state(), std_dev_t={"latent": torch.ones(2, 3)})
    with pytest.raises(ValueError, match=r"component_log_probs\['latent'\] shape"):
        MultiModalStepOutput(velocity=_state(), component_log_probs={"latent": torch.ones(2, 1)})
    with pytest.raises(ValueError, match="MultiModalStepOutput.dt"):
        MultiModalStepOutput(std_dev_t={"latent": torch.ones(2, 1)}, dt={"latent": torch.ones(3)})
    output = MultiModalStepOutput(velocity=_state(), std_dev_t={"latent": torch.ones(2, 1)})
    assert not hasattr(output, "mean") and output.next_state is None


# ----------------------------------------------------------------------------- output state
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"type": "image", "height": 1, "width": 8}, TypeError, "MediaType"),
        ({"type": MediaType.IMAGE, "height": True, "width": 8}, TypeError, "positive int"),
        ({"type": MediaType.IMAGE, "height": 0, "width": 8}, ValueError, "positive int"),
        ({"type": MediaType.IMAGE, "height": 1, "width": 8, "frames": 2}, ValueError, "image"),
        ({"type": MediaType.VIDEO, "height": 1, "width": 8}, ValueError, "video"),
        ({"type": MediaType.VIDEO, "height": 1, "width": 8, "frames": 2, "fps": 24},
         TypeError, "finite float"),
        ({"type": MediaType.AUDIO, "samples": 16, "fps": 24.0}, ValueError, "audio"),
    ],
)
def test_media_geometry_signature_is_strict(kwargs, error, message):
    with pytest.raises(error, match=message):
        MediaGeometrySignature(**kwargs)


def test_geometry_signature_is_a_non_empty_exact_tuple():
    item = MediaGeometrySignature(MediaType.AUDIO, samples=16, sample_rate=8000)
    with pytest.raises(TypeError, match="tuple"):
        GeometrySignature(media=[item])
    with pytest.raises(ValueError, match="at least one"):
        GeometrySignature(media=())
    assert GeometrySignature(media=(item,)).media == (item,)


def test_encoded_output_state_freezes_contexts_and_checks_its_fields():
    encoded = _encoded(torch.zeros(2, 8), forward_context={"mask": 1})
    assert isinstance(encoded.forward_context, MappingProxyType)
    with pytest.raises(TypeError):
        encoded.forward_context["other"] = 2
    with pytest.raises(TypeError, match="clean_state to be LatentState"):
        _encoded(torch.zeros(2, 8), clean_state={"latent": torch.zeros(2, 8)})
    with pytest.raises(ValueError, match="state-owned"):
        _encoded(torch.zeros(2, 8), forward_context={"clean_state": 1})
    with pytest.raises(TypeError, match="geometry_signatures to be tuple"):
        _encoded(torch.zeros(2, 8), geometry_signatures=[])
    with pytest.raises(ValueError, match="at least one sample"):
        _encoded(torch.zeros(2, 8), geometry_signatures=())


def _validate(encoded: object, order: tuple[str, ...] = ("latent",), batch: int = 2):
    return validate_encoded_output_state(encoded, contract=TOY_PIPELINE_IO_CONTRACT,
                                         expected_component_order=order,
                                         expected_batch_size=batch, device="cpu")


def test_validate_encoded_output_state_checks_against_the_adapter_and_contract():
    assert _validate(_encoded(torch.zeros(2, 8))) is not None
    with pytest.raises(TypeError, match="EncodedOutputState"):
        _validate(SimpleNamespace(clean_state=_state()))
    with pytest.raises(ValueError, match="component order"):
        _validate(_encoded(torch.zeros(2, 8)), order=("latent", "audio"))
    with pytest.raises(ValueError, match="batch size 3"):
        _validate(_encoded(torch.zeros(2, 8)), batch=3)
    with pytest.raises(ValueError, match="detached"):
        _validate(_encoded(torch.zeros(2, 8, requires_grad=True)))
    with pytest.raises(TypeError, match="float16, bfloat16, or float32"):
        _validate(_encoded(torch.zeros(2, 8, dtype=torch.float64)))
    audio = GeometrySignature(media=(MediaGeometrySignature(MediaType.AUDIO, samples=8),))
    with pytest.raises(ValueError, match="media types"):
        _validate(_encoded(torch.zeros(2, 8), geometry_signatures=(audio, audio)))


# ----------------------------------------------------------------------------- condition state
def test_prepared_condition_state_freezes_and_gives_every_field_one_owner():
    condition = {"prompt_embeds": torch.zeros(2, 8)}
    prepared = PreparedConditionState.identity(condition)
    condition["late"] = 1
    assert tuple(prepared.condition) == ("prompt_embeds",)
    assert isinstance(prepared.model_forward_condition(), MappingProxyType)
    with pytest.raises(TypeError):
        prepared.model_forward_condition()["x"] = 1
    with pytest.raises(ValueError, match="cannot enter model forward"):
        PreparedConditionState.identity({"all_latents": torch.zeros(1)})
    with pytest.raises(ValueError, match="collides"):
        PreparedConditionState({"a": 1}, {"a": 2}, {})
    with pytest.raises(TypeError, match="Mapping"):
        PreparedConditionState({"a": 1}, [], {})
    both = PreparedConditionState({"a": 1}, {"b": 2}, {"c": 3})
    assert dict(both.output_codec_condition()) == {"a": 1, "c": 3}


# ----------------------------------------------------------------------------- helpers
def test_require_latent_state_is_exact_equality_with_the_adapter_order():
    trainer = _trainer(_adapter(("latent", "audio")))
    with pytest.raises(TypeError, match="expected LatentState for replay"):
        require_latent_state(trainer, {"latent": torch.zeros(2, 3)}, "replay")
    with pytest.raises(ValueError, match="component order"):
        require_latent_state(trainer, _state(), "replay")  # a subset is refused
    full = LatentState({"latent": torch.zeros(2, 3), "audio": torch.zeros(2, 1)})
    assert require_latent_state(trainer, full, "replay") is full
    assert state_batch_size(trainer, full) == 2


def test_require_component_sigmas_returns_a_dict_in_component_order():
    trainer = _trainer()
    sigmas = require_component_sigmas(trainer, _times(torch.ones(2)))
    assert type(sigmas) is dict and list(sigmas) == ["latent"]
    with pytest.raises(ValueError, match="component sigmas"):
        require_component_sigmas(trainer, _times(torch.ones(2), sigma=False))


def test_require_velocity_state_needs_the_requested_velocity():
    trainer = _trainer()
    with pytest.raises(ValueError, match="request 'velocity'"):
        require_velocity_state(trainer, MultiModalStepOutput(), "policy", _state())
    with pytest.raises(ValueError, match="shape"):
        require_velocity_state(
            trainer, MultiModalStepOutput(velocity=LatentState({"latent": torch.zeros(2, 4)})),
            "policy", _state(),
        )


def test_reductions_take_plain_mappings_and_weight_every_element():
    adapter = _adapter(("video", "audio"))
    values = {"video": torch.tensor([[1.0, 3.0], [2.0, 4.0]]),
              "audio": torch.tensor([[10.0], [20.0]])}
    expected = torch.tensor([14.0 / 3.0, 26.0 / 3.0])
    assert torch.allclose(adapter.reduce_latent_values(values), expected)
    assert torch.allclose(adapter.reduce_flow_matching_objective_values(values), expected)
    partial = {"video": values["video"], "audio": torch.tensor([10.0, 20.0])}
    reduced = adapter.reduce_latent_values(partial, active_numel={"audio": 3})
    assert torch.allclose(reduced, torch.tensor([34.0 / 5.0, 66.0 / 5.0]))
    with pytest.raises(ValueError, match=r"expected non-empty Mapping\[str, torch.Tensor\]"):
        adapter.reduce_flow_matching_objective_values(LatentState(values))
    with pytest.raises(ValueError, match="keys/order"):
        adapter.reduce_latent_values({"audio": values["audio"], "video": values["video"]})
    with pytest.raises(ValueError, match="state component order"):
        adapter.reduce_latent_values(values, state=LatentState({"video": torch.zeros(2, 2)}))


def test_flow_matching_loss_hands_the_reduction_a_plain_fp32_dict():
    received = {}

    class Adapter:
        def reduce_flow_matching_objective_values(self, values, *, state):
            received.update(values=values, state=state)
            return values["latent"].mean(dim=1)

    state = _state()
    target = LatentState({"latent": torch.ones(2, 3, dtype=torch.float16)})
    noised = NoisedState(state=state, target_velocity=target, noise=target)
    loss = flow_matching_per_sample_loss(Adapter(), LatentState({"latent": torch.zeros(2, 3)}),
                                         noised)
    assert type(received["values"]) is dict and received["state"] is state
    assert loss.dtype is torch.float32 and torch.equal(loss, torch.ones(2))
    with pytest.raises(TypeError, match="predicted_velocity to be LatentState"):
        flow_matching_per_sample_loss(Adapter(), {"latent": torch.zeros(2, 3)}, noised)
    with pytest.raises(TypeError, match="noised to be NoisedState"):
        flow_matching_per_sample_loss(Adapter(), state, SimpleNamespace(target_velocity=target))


def test_build_noised_output_state_refuses_stand_ins_and_noises_per_component():
    adapter, clean, t = _adapter(), _state(), torch.full((2,), 0.5)
    with pytest.raises(TypeError, match="clean_state to be LatentState"):
        build_noised_output_state(adapter, {"latent": torch.zeros(2, 3)}, t, batch={})
    with pytest.raises(TypeError, match="primary_timesteps to be Tensor"):
        build_noised_output_state(adapter, clean, [0.5, 0.5], batch={})
    with pytest.raises(TypeError, match="batch to be Mapping"):
        build_noised_output_state(adapter, clean, t, batch=[])
    noise = LatentState({"latent": torch.ones(2, 3)})
    times, noised = build_noised_output_state(adapter, clean, t, batch={}, noise=noise)
    assert torch.equal(times.sigma["latent"], t) and torch.equal(times.next_timestep["latent"],
                                                                 torch.zeros(2))
    assert torch.equal(noised.state.components["latent"], torch.full((2, 3), 0.5))
    with pytest.raises(ValueError, match="mutually exclusive"):
        build_noised_output_state(adapter, clean, t, batch={}, noise=noise,
                                  generator=torch.Generator())
    validate_preference_component_times(times, times)
    with pytest.raises(ValueError, match="values mismatch"):
        validate_preference_component_times(times, adapter.build_training_component_times(t * 0))


def test_adapter_state_methods_refuse_stand_ins():
    adapter = _adapter(latent_storage_dtype="bf16")
    with pytest.raises(TypeError, match="Mapping"):
        adapter.prepare_condition_state([("prompt_embeds", torch.zeros(1))])
    with pytest.raises(TypeError, match="cast_latent_state"):
        adapter.cast_latent_state({"latent": torch.zeros(2, 3)})
    assert adapter.cast_latent_state(_state()).components["latent"].dtype is torch.bfloat16
    with pytest.raises(TypeError, match="EncodedOutputState"):
        adapter.decode_output_state(SimpleNamespace(clean_state=_state()), output_type="pt")
    assert adapter.decode_output_state(_encoded(torch.ones(2, 8)), output_type="pt").shape == (2, 8)
    with pytest.raises(TypeError, match="primary_timesteps"):
        adapter.build_training_component_times(0.5)
    with pytest.raises(ValueError, match="sigma component order"):
        adapter.apply_forward_process_noise(_state(), _times(torch.ones(2), sigma=False), _state())


def test_offline_binding_helpers_refuse_stand_ins():
    with pytest.raises(TypeError, match="PreparedConditionState"):
        bind_prepared_condition_output({"prompt_embeds": torch.zeros(1)}, {})
    with pytest.raises(TypeError, match="non_blocking must be a bool"):
        move_condition_to_device({"x": torch.zeros(1)}, "cpu", non_blocking=1)
    prepared = PreparedConditionState.identity({"x": torch.zeros(1)})
    with pytest.raises(ValueError, match="collides"):
        bind_prepared_condition_output(prepared, {"x": 1})


def test_replay_steps_come_from_the_stored_trajectory_by_int_index():
    samples = [
        BaseSample(all_latents=torch.arange(6.0).reshape(3, 2) + offset,
                   latent_index_map=torch.tensor([0, 1, 2]),
                   timesteps=torch.tensor([1.0, 0.5, 0.0]),
                   log_probs=torch.tensor([0.1, 0.2]) + offset,
                   log_prob_index_map=torch.tensor([0, 1]))
        for offset in (0.0, 10.0)
    ]
    batch = BaseSample.stack(samples)
    assert batch["latent_index_map"].shape == (3,) and len(batch.samples) == 2
    step = _adapter().get_replay_step(batch, 1)
    assert torch.equal(step.state.components["latent"], batch["all_latents"][:, 1])
    assert torch.equal(step.times.next_timestep["latent"], torch.zeros(2))
    assert step.times.sigma is None and torch.equal(step.log_prob, batch["log_probs"][:, 1])
    with pytest.raises(TypeError, match="int step_index"):
        _adapter().get_replay_step(batch, torch.tensor(1))
    terminal = _adapter().get_terminal_state(batch)
    assert torch.equal(terminal.components["latent"], batch["all_latents"][:, 2])
