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

"""The ``toy`` model: a tiny MLP velocity network on 8-dim latents conditioned on prompt text."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch import nn

from ..contracts import (
    BatchCapability,
    GeometrySource,
    InputMediaBinding,
    InputMediaOrder,
    InputMediaSpec,
    MediaFormat,
    MediaType,
    NegativePromptPolicy,
    OutputMediaSequence,
    PipelineIOContract,
    RateRequirement,
)
from ..samples import BaseSample, ComponentTimes, LatentState
from .abc import BaseAdapter, _gaussian_log_prob
from .condition_state import PreparedConditionState
from .output_state import (
    DecodedMediaBatch,
    EncodedOutputState,
    GeometrySignature,
    MediaGeometrySignature,
    validate_encoded_output_state,
)

LATENT_DIM = 8
# The velocity network's linear layers: what ``target_modules: default`` means for the toy.
TOY_LINEAR = ("fc1", "fc2", "out")
SDE_DYNAMICS = ("Flow-SDE", "Dance-SDE", "CPS")


def _seeded_vector(text: str, salt: str) -> torch.Tensor:
    digest = hashlib.sha256(f"{salt}:{text}".encode()).digest()
    generator = torch.Generator().manual_seed(int.from_bytes(digest[:8], "little"))
    return torch.randn(LATENT_DIM, generator=generator)


def prompt_embedding(prompt: str) -> torch.Tensor:
    """Deterministic ``(8,)`` embedding of a prompt (stands in for a text encoder)."""
    return _seeded_vector(prompt, "embed")


def _target_matrix() -> torch.Tensor:
    generator = torch.Generator().manual_seed(1234)
    return torch.randn(LATENT_DIM, LATENT_DIM, generator=generator) / math.sqrt(LATENT_DIM)


def prompt_target(prompt: str) -> torch.Tensor:
    """Deterministic ``(8,)`` "ideal output" of a prompt (what ``toy_target`` rewards).

    A fixed linear map of the prompt embedding, so the tiny network can learn it in seconds.
    """
    return _target_matrix() @ prompt_embedding(prompt)


def parse_toy_seed(source: str) -> int:
    """Seed from ``"toy:seed=<n>"`` (or ``"toy"`` -> 0)."""
    match = re.fullmatch(r"toy(?::seed=(\d+))?", str(source).strip())
    if match is None:
        raise ValueError(f"toy model path must look like 'toy:seed=<n>', got {source!r}")
    return int(match.group(1) or 0)


class LoRALinear(nn.Module):
    """Frozen linear layer plus a trainable low-rank update ``B @ A`` (B starts at zero)."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)
        scale = math.sqrt(base.in_features)
        self.lora_A = nn.Parameter(torch.randn(rank, base.in_features) / scale)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scale = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scale


class ToyVelocityNet(nn.Module):
    """MLP on ``[x_t, t, prompt_embeds]`` -> velocity ``(B, 8)``."""

    def __init__(self, hidden_dim: int = 64) -> None:
        super().__init__()
        self.fc1 = nn.Linear(2 * LATENT_DIM + 1, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, hidden_dim)
        self.out = nn.Linear(hidden_dim, LATENT_DIM)

    def forward(self, x: torch.Tensor, t: torch.Tensor, emb: torch.Tensor) -> torch.Tensor:
        h = torch.cat([x, t.reshape(-1, 1).to(x.dtype), emb.to(x.dtype)], dim=-1)
        h = nn.functional.silu(self.fc1(h))
        h = nn.functional.silu(self.fc2(h))
        return self.out(h)

    def apply_lora(self, rank: int, alpha: float, modules: tuple[str, ...] = TOY_LINEAR) -> None:
        """Freeze every base weight and wrap the named linear layers with LoRA adapters."""
        self.requires_grad_(False)
        for name in modules:
            setattr(self, name, LoRALinear(getattr(self, name), rank, alpha))


def toy_lora_targets(target_modules: object) -> tuple[str, ...]:
    """The toy model's layers ``model.target_modules`` names. ``"default"`` is the model's own
    list (all three linear layers); like SD3.5 in the real framework, the toy model has no module
    the loader's default ``"all"`` resolves to, so a config that leaves the key out fails here
    instead of at LoRA injection on a real model."""
    if target_modules == "default":
        return TOY_LINEAR
    names = [target_modules] if isinstance(target_modules, str) else list(target_modules)
    missing = [name for name in names if name not in TOY_LINEAR]
    if missing or not names:
        raise ValueError(
            f"Target modules {', '.join(map(str, missing or names))} not found in the base "
            f"model; set model.target_modules to \"default\" or a list of {list(TOY_LINEAR)}"
        )
    return tuple(names)


def build_toy_network(seed: int, hidden_dim: int) -> ToyVelocityNet:
    """Deterministically initialised network (independent of the global RNG)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return ToyVelocityNet(hidden_dim)


# Source spelling of a flow-matching-trained teacher of the toy model (see ToyAdapter).
TRAINED_TEACHER = "toy:teacher"
_TEACHER_CACHE: dict[tuple, dict[str, torch.Tensor]] = {}


def _train_flow_matching_teacher(net: ToyVelocityNet, steps: int = 400) -> dict[str, torch.Tensor]:
    """Fit ``net``'s trainable weights by flow matching to ``x0 = target_matrix @ embedding``."""
    params = [p for p in net.parameters() if p.requires_grad]
    matrix = _target_matrix()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(4321)
        optimizer = torch.optim.Adam(params, lr=1e-2)
        for _ in range(steps):
            emb = torch.randn(64, LATENT_DIM)
            x0 = emb @ matrix.t()
            noise, t = torch.randn(64, LATENT_DIM), torch.rand(64)
            x_t = (1 - t[:, None]) * x0 + t[:, None] * noise
            loss = ((net(x_t, t, emb) - (noise - x0)) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return {k: p.detach().clone() for k, p in net.named_parameters() if p.requires_grad}


#: Text to one "image" (an 8-float vector), configured geometry, uniform batches.
TOY_PIPELINE_IO_CONTRACT = PipelineIOContract(
    input_media=InputMediaSpec(
        rules=(), binding=InputMediaBinding.GROUPED_BY_TYPE, order=InputMediaOrder.INSENSITIVE
    ),
    negative_prompt=NegativePromptPolicy.UNSUPPORTED,
    output_media=OutputMediaSequence(
        items=(MediaFormat(MediaType.IMAGE, RateRequirement.NOT_APPLICABLE,
                           RateRequirement.NOT_APPLICABLE),)
    ),
    geometry_source=GeometrySource.CONFIGURED,
    batch_capability=BatchCapability.UNIFORM,
)


class ToyAdapter(BaseAdapter):
    """Adapter for ``model_type: toy`` (LoRA or full finetune; ODE/SDE sampling)."""

    pipeline_io_contract = TOY_PIPELINE_IO_CONTRACT

    def _hidden_dim(self) -> int:
        """Width of the toy MLP: ``model.hidden_dim`` in YAML (an extra key: the real
        ``ModelArguments`` has no such field, so it lands in ``extra_kwargs``), default 64."""
        return int(self.model_args.extra_kwargs.get("hidden_dim", 64))

    def _sandbox_load_transformer(self) -> nn.Module:
        args = self.model_args
        net = build_toy_network(parse_toy_seed(args.model_name_or_path), self._hidden_dim())
        if args.finetune_type == "lora":
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(parse_toy_seed(args.model_name_or_path) + 1)
                net.apply_lora(int(args.lora_rank), float(args.lora_alpha or args.lora_rank),
                               toy_lora_targets(args.target_modules))
        return net

    def _sandbox_read_weights(self, source: str) -> dict[str, torch.Tensor]:
        """``toy:seed=<n>`` stands in for a pretrained checkpoint: the trainable weights of a
        network built from that seed (LoRA factors seeded the same way); else a saved file."""
        if not str(source).startswith("toy"):
            return super()._sandbox_read_weights(source)
        if str(source).strip() == TRAINED_TEACHER:
            return self._trained_teacher_weights()
        seed = parse_toy_seed(source)
        fresh = build_toy_network(seed, self._hidden_dim())
        if self.model_args.finetune_type == "lora":
            rank = int(self.model_args.lora_rank)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed + 1)
                fresh.apply_lora(rank, float(self.model_args.lora_alpha or rank),
                                 toy_lora_targets(self.model_args.target_modules))
                for name, param in fresh.named_parameters():
                    if name.endswith("lora_B"):
                        # A non-zero update, so a LoRA "teacher" differs from the base model.
                        param.data = 0.1 * torch.randn(param.shape) / math.sqrt(param.shape[1])
        return {k: p.detach().clone() for k, p in fresh.named_parameters() if p.requires_grad}

    def _trained_teacher_weights(self) -> dict[str, torch.Tensor]:
        """Trainable weights of this model after flow-matching training on the toy target
        distribution (``x0 = prompt_target``): a teacher whose velocity is a real score, for
        distillation objectives that need one. Deterministic; trained once per process."""
        args = self.model_args
        key = (args.model_name_or_path, args.finetune_type, self._hidden_dim(),
               int(args.lora_rank), float(args.lora_alpha or args.lora_rank))
        if key not in _TEACHER_CACHE:
            net = self._sandbox_load_transformer()
            _TEACHER_CACHE[key] = _train_flow_matching_teacher(net)
        return {k: v.clone() for k, v in _TEACHER_CACHE[key].items()}

    # ------------------------------------------------------------------ conditions
    def preprocess_func(
        self,
        prompt: Any = None,
        images: Any = None,
        videos: Any = None,
        audios: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """``{"prompt": [...], "prompt_embeds": (B, 8)}`` from prompt text."""
        prompts = [prompt] if isinstance(prompt, str) else list(prompt)
        embeds = torch.stack([prompt_embedding(p) for p in prompts], dim=0)
        return {"prompt": prompts, "prompt_embeds": embeds}

    def encode_output_state(
        self,
        media_batch: DecodedMediaBatch,
        condition: Mapping[str, Any] | PreparedConditionState,
        generator: torch.Generator | None = None,
    ) -> EncodedOutputState:
        """First media payload of each record -> clean latent ``(B, 8)``, checked with
        ``validate_encoded_output_state`` (a toy image is ``1 x 8`` pixels)."""
        rows = []
        for index, media in enumerate(media_batch):
            if not media:
                raise ValueError(f"record {index} has no target media, expected one image")
            payload = torch.as_tensor(media[0].payload, dtype=torch.float32).reshape(-1)
            if payload.numel() != LATENT_DIM:
                raise ValueError(
                    f"toy media must hold {LATENT_DIM} floats, got {payload.numel()} "
                    f"({media[0].path})"
                )
            rows.append(payload)
        clean = torch.stack(rows, dim=0).to(self.device)
        geometry = MediaGeometrySignature(type=MediaType.IMAGE, height=1, width=LATENT_DIM)
        encoded = EncodedOutputState(
            clean_state=LatentState({"latent": clean}),
            forward_context={},
            decode_context={},
            geometry_signatures=tuple(GeometrySignature(media=(geometry,)) for _ in rows),
        )
        return validate_encoded_output_state(
            encoded,
            contract=self.effective_pipeline_io_contract,
            expected_component_order=self.trajectory_component_order,
            expected_batch_size=len(rows),
            device=self.device,
        )

    def _decode_output_state(self, encoded: EncodedOutputState, *, output_type: str) -> Any:
        """Toy media are the latents themselves: a ``(B, 8)`` tensor (``pt``) or array (``np``)."""
        latents = encoded.clean_state.components["latent"].detach().cpu()
        if output_type == "pil":
            raise ValueError("toy outputs are 8-float vectors, not images: use 'pt' or 'np'")
        return latents if output_type == "pt" else latents.numpy()

    # ------------------------------------------------------------------ forward
    def forward(
        self, state: LatentState, times: ComponentTimes, batch: Mapping[str, Any]
    ) -> LatentState:
        x = state.components["latent"]
        emb = torch.as_tensor(batch["prompt_embeds"]).to(x.device)
        t = times.timestep["latent"].to(x.device)
        velocity = self.transformer(x, t.expand(x.shape[0]) if t.ndim == 0 else t, emb)
        return LatentState({"latent": velocity})

    @torch.no_grad()
    def inference(
        self,
        prompt: Any = None,
        prompt_embeds: torch.Tensor | None = None,
        num_inference_steps: int = 10,
        compute_log_prob: bool = False,
        trajectory_indices: Sequence[int] | None = None,
        noise_level: float | None = None,
        height: int | None = None,
        width: int | None = None,
    ) -> list[BaseSample]:
        """Integrate from t=1 (noise) to t=0: Euler (ODE) or Euler-Maruyama (SDE dynamics)."""
        prompts = [prompt] if isinstance(prompt, str) else list(prompt)
        if prompt_embeds is None:
            prompt_embeds = self.preprocess_func(prompts)["prompt_embeds"]
        emb = prompt_embeds.to(self.device)
        scheduler = self.scheduler
        level = float(scheduler.noise_level if noise_level is None else noise_level)
        steps = int(num_inference_steps)
        timesteps = torch.linspace(1.0, 0.0, steps + 1)
        x = torch.randn(len(prompts), LATENT_DIM, generator=self._generator).to(self.device)
        points, log_probs = [x], []
        for i in range(steps):
            t, dt = timesteps[i], float(timesteps[i] - timesteps[i + 1])
            v = self.transformer(x, t.expand(len(prompts)).to(self.device), emb)
            mean = x - dt * v
            if scheduler.is_noisy_step(i):
                std = max(level * math.sqrt(dt), 1e-6)
                noise = torch.randn(x.shape, generator=self._generator).to(self.device)
                x = mean + std * noise
                log_probs.append(_gaussian_log_prob(x, mean, torch.full_like(x, std)))
            else:
                x = mean
                log_probs.append(torch.zeros(len(prompts), device=x.device))
            points.append(x)
        return self._to_samples(prompts, emb, points, timesteps, log_probs, compute_log_prob,
                                trajectory_indices, height, width)

    def _to_samples(self, prompts, emb, points, timesteps, log_probs, compute_log_prob,
                    trajectory_indices, height, width) -> list[BaseSample]:
        trajectory = torch.stack(points, dim=1).cpu()  # (B, S+1, 8)
        positions = list(range(trajectory.shape[1]))
        if trajectory_indices is not None:
            positions = [p % trajectory.shape[1] for p in trajectory_indices]
            trajectory = trajectory[:, positions]
        # Position in the full trajectory -> column of the kept latents (-1: not kept).
        index_map = torch.full((len(points),), -1, dtype=torch.long)
        for column, position in enumerate(positions):
            index_map[position] = column
        stacked_log_probs = torch.stack(log_probs, dim=1).cpu() if compute_log_prob else None
        log_prob_map = torch.arange(len(log_probs)) if compute_log_prob else None
        return [
            BaseSample(
                prompt=p,
                prompt_embeds=emb[i].cpu(),
                image=points[-1][i].cpu(),
                height=height,
                width=width,
                all_latents=trajectory[i],
                latent_index_map=index_map,
                timesteps=timesteps.clone(),
                log_probs=None if stacked_log_probs is None else stacked_log_probs[i],
                log_prob_index_map=log_prob_map,
            )
            for i, p in enumerate(prompts)
        ]


__all__ = [
    "LATENT_DIM",
    "TOY_PIPELINE_IO_CONTRACT",
    "LoRALinear",
    "ToyAdapter",
    "ToyVelocityNet",
    "build_toy_network",
    "parse_toy_seed",
    "prompt_embedding",
    "prompt_target",
]
