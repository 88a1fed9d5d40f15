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

"""The ``sd3-5`` model type of the sandbox: a real diffusers ``SD3Transformer2DModel``.

``model.model_name_or_path`` is a diffusers pipeline folder (``transformer/`` is the part read
here; ``ffgen smoke`` builds a tiny random one locally). Only the velocity network is real: the
sandbox keeps the toy model's 8-float "images", prompt embeddings, datasets and rewards, so a
latent is laid out as ``(4, 1, 2)`` for the transformer and prompts are hashed embeddings
repeated to the transformer's conditioning widths. diffusers is imported only when a model is
built, so the rest of the sandbox runs without it.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import torch
from torch import nn

from .toy import LATENT_DIM, LoRALinear, ToyAdapter

# Attention projections LoRA wraps when ``target_modules: default`` (matched as name suffixes).
SD3_LORA_DEFAULT = ("attn.to_q", "attn.to_k", "attn.to_v", "attn.to_out.0")


class SD3VelocityNet(nn.Module):
    """``(x, t, emb)`` -> velocity through an ``SD3Transformer2DModel`` (same call as the toy)."""

    def __init__(self, transformer: nn.Module) -> None:
        super().__init__()
        self.model = transformer
        config = transformer.config
        channels = int(config.in_channels)
        if LATENT_DIM % channels:
            raise ValueError(f"in_channels {channels} must divide the {LATENT_DIM}-float latent")
        self.latent_shape = (channels, 1, LATENT_DIM // channels)
        self.joint_dim = int(config.joint_attention_dim)
        self.pooled_dim = int(config.pooled_projection_dim)

    def _widen(self, emb: torch.Tensor, width: int) -> torch.Tensor:
        reps = math.ceil(width / emb.shape[-1])
        return emb.repeat(1, reps)[:, :width]

    def forward(self, x: torch.Tensor, t: torch.Tensor, emb: torch.Tensor) -> torch.Tensor:
        batch = x.shape[0]
        emb = emb.to(x.dtype)
        out = self.model(
            hidden_states=x.reshape(batch, *self.latent_shape),
            encoder_hidden_states=self._widen(emb, self.joint_dim).unsqueeze(1),
            pooled_projections=self._widen(emb, self.pooled_dim),
            timestep=t.reshape(-1).to(x.dtype) * 1000.0,
            return_dict=False,
        )[0]
        return out.reshape(batch, LATENT_DIM)


def sd3_lora_targets(target_modules: object) -> tuple[str, ...]:
    """Name suffixes ``model.target_modules`` selects (``default``: the attention projections)."""
    if target_modules == "default":
        return SD3_LORA_DEFAULT
    names = [target_modules] if isinstance(target_modules, str) else list(target_modules)
    if not names or "all" in names:
        raise ValueError(
            f"Target modules {names} not found in the base model; set model.target_modules to "
            f"\"default\" or suffixes such as {list(SD3_LORA_DEFAULT)}"
        )
    return tuple(names)


def apply_lora(net: nn.Module, rank: int, alpha: float, suffixes: tuple[str, ...]) -> int:
    """Freeze ``net`` and wrap each ``nn.Linear`` whose name ends with a suffix; how many."""
    net.requires_grad_(False)
    chosen = [
        name for name, module in net.named_modules()
        if isinstance(module, nn.Linear) and any(name.endswith(s) for s in suffixes)
    ]
    if not chosen:
        raise ValueError(f"Target modules {list(suffixes)} not found in the base model")
    for name in chosen:
        parent_name, _, leaf = name.rpartition(".")
        parent = net.get_submodule(parent_name) if parent_name else net
        setattr(parent, leaf, LoRALinear(getattr(parent, leaf), rank, alpha))
    return len(chosen)


def _path_seed(source: str) -> int:
    return int.from_bytes(hashlib.sha256(str(Path(source).resolve()).encode()).digest()[:4], "little")


class SD3Adapter(ToyAdapter):
    """Adapter for ``model_type: sd3-5`` in the sandbox (LoRA or full finetune)."""

    def _build(self, source: str, teacher: bool = False) -> SD3VelocityNet:
        """The network of pipeline folder ``source``, LoRA applied as configured; a LoRA
        ``teacher`` gets a non-zero update (seeded by its folder) so it differs from the base."""
        try:
            from diffusers import SD3Transformer2DModel
        except ImportError as exc:  # the toy model needs no diffusers; this type does
            raise ImportError("model_type sd3-5 needs diffusers: pip install diffusers") from exc
        folder = Path(source)
        if not (folder / "transformer" / "config.json").is_file():
            raise ValueError(
                f"sd3-5 model path {source!r} is not a diffusers pipeline folder with a "
                "transformer/ (ffgen smoke builds a tiny one)"
            )
        transformer = SD3Transformer2DModel.from_pretrained(folder, subfolder="transformer")
        net = SD3VelocityNet(transformer.float())
        args = self.model_args
        if args.finetune_type == "lora":
            rank = int(args.lora_rank)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(_path_seed(source) if teacher else 1)
                apply_lora(net, rank, float(args.lora_alpha or rank),
                           sd3_lora_targets(args.target_modules))
                if teacher:
                    for name, param in net.named_parameters():
                        if name.endswith("lora_B"):
                            param.data = 0.1 * torch.randn(param.shape) / math.sqrt(param.shape[1])
        return net

    def _sandbox_load_transformer(self) -> nn.Module:
        return self._build(str(self.model_args.model_name_or_path))

    def _sandbox_read_weights(self, source: str) -> dict[str, torch.Tensor]:
        """A pipeline folder stands for its trainable weights (a teacher, a reference); else a
        ``torch.save``d file."""
        if not Path(str(source)).is_dir():
            return super()._sandbox_read_weights(source)
        own = Path(str(source)).resolve() == Path(str(self.model_args.model_name_or_path)).resolve()
        fresh = self._build(str(source), teacher=not own)
        return {k: p.detach().clone() for k, p in fresh.named_parameters() if p.requires_grad}


__all__ = ["SD3Adapter", "SD3VelocityNet", "apply_lora", "sd3_lora_targets"]
