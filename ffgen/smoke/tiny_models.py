"""Tiny random-initialised diffusers pipelines per model type, built locally from configs.

One recipe per model type, in the spirit of diffusers' own pipeline tests' "dummy components":
every part (transformer, text encoders, VAE, scheduler, tokenizers) is constructed from a small
configuration with seeded random weights, nothing is downloaded, and the whole pipeline is saved
with ``save_pretrained`` so a checkout's adapter loads it the way it loads a real checkpoint.

ffgen imports this module only for :data:`RECIPES`' names (no torch at import time); the smoke
driver imports it in the checkout's interpreter to build. To add a model type, write a
``_<type>_components(seed)`` function returning the pipeline class name and its components, and
add it to :data:`RECIPES`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Characters the local tokenizers know (each prompt character is one token; the rest map to
# <unk>): enough for the prompts ffgen smoke writes.
_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789,.-'"
_VOCAB_SIZE = 1000  # text encoder embedding rows (more than the tokenizer uses)


def _tokenizer(specials: tuple[str, ...], bos: str | None, eos: str, pad: str, unk: str,
               max_length: int) -> Any:
    """A character-level fast tokenizer built in memory with the ``tokenizers`` library."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {token: index for index, token in enumerate((*specials, *_CHARS))}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token=unk))
    core.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Whitespace(), pre_tokenizers.Split("", behavior="isolated")]
    )
    single = f"{bos} $A {eos}" if bos else f"$A {eos}"
    ids = [(t, vocab[t]) for t in (bos, eos) if t]
    core.post_processor = processors.TemplateProcessing(single=single, special_tokens=ids)
    extra = {"bos_token": bos} if bos else {}
    return PreTrainedTokenizerFast(
        tokenizer_object=core, eos_token=eos, pad_token=pad, unk_token=unk,
        model_max_length=max_length, **extra,
    )


def clip_tokenizer() -> Any:
    return _tokenizer(("<|startoftext|>", "<pad>", "<|endoftext|>", "<unk>"),
                      bos="<|startoftext|>", eos="<|endoftext|>", pad="<|endoftext|>",
                      unk="<unk>", max_length=77)


def t5_tokenizer() -> Any:
    return _tokenizer(("<pad>", "</s>", "<unk>"), bos=None, eos="</s>", pad="<pad>",
                      unk="<unk>", max_length=512)


def _clip_config(projection_dim: int) -> Any:
    from transformers import CLIPTextConfig

    return CLIPTextConfig(
        bos_token_id=0, pad_token_id=1, eos_token_id=2, hidden_size=32, intermediate_size=37,
        num_attention_heads=4, num_hidden_layers=2, vocab_size=_VOCAB_SIZE, hidden_act="gelu",
        projection_dim=projection_dim, layer_norm_eps=1e-5,
    )


def _t5_encoder() -> Any:
    from transformers import T5Config, T5EncoderModel

    config = T5Config(vocab_size=_VOCAB_SIZE, d_model=32, d_kv=8, d_ff=37, num_layers=1,
                      num_heads=4, relative_attention_num_buckets=8, dropout_rate=0.0)
    return T5EncoderModel(config)


def _vae(latent_channels: int, scaling: float, shift: float) -> Any:
    from diffusers import AutoencoderKL

    return AutoencoderKL(
        sample_size=32, in_channels=3, out_channels=3, block_out_channels=(4,),
        layers_per_block=1, latent_channels=latent_channels, norm_num_groups=1,
        use_quant_conv=False, use_post_quant_conv=False, scaling_factor=scaling,
        shift_factor=shift,
    )


def _seeded(seed: int, build: Callable[[], Any]) -> Any:
    import torch

    torch.manual_seed(seed)
    return build()


def _sd3_5_components(seed: int) -> tuple[str, dict[str, Any]]:
    from diffusers import FlowMatchEulerDiscreteScheduler, SD3Transformer2DModel
    from transformers import CLIPTextModelWithProjection

    return "StableDiffusion3Pipeline", {
        "transformer": _seeded(seed, lambda: SD3Transformer2DModel(
            sample_size=32, patch_size=1, in_channels=4, num_layers=1, attention_head_dim=8,
            num_attention_heads=4, caption_projection_dim=32, joint_attention_dim=32,
            pooled_projection_dim=64, out_channels=4)),
        "text_encoder": _seeded(seed + 1, lambda: CLIPTextModelWithProjection(_clip_config(32))),
        "text_encoder_2": _seeded(seed + 2, lambda: CLIPTextModelWithProjection(_clip_config(32))),
        "text_encoder_3": _seeded(seed + 3, _t5_encoder),
        "vae": _seeded(seed + 4, lambda: _vae(4, 1.5305, 0.0609)),
        "scheduler": FlowMatchEulerDiscreteScheduler(shift=3.0),
        "tokenizer": clip_tokenizer(),
        "tokenizer_2": clip_tokenizer(),
        "tokenizer_3": t5_tokenizer(),
    }


def _flux1_components(seed: int) -> tuple[str, dict[str, Any]]:
    from diffusers import FlowMatchEulerDiscreteScheduler, FluxTransformer2DModel
    from transformers import CLIPTextModel

    return "FluxPipeline", {
        "transformer": _seeded(seed, lambda: FluxTransformer2DModel(
            patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
            attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
            pooled_projection_dim=32, axes_dims_rope=[4, 4, 8],
            # FLUX.1-dev's layout: the real adapter always passes a guidance value
            guidance_embeds=True)),
        "text_encoder": _seeded(seed + 1, lambda: CLIPTextModel(_clip_config(32))),
        "text_encoder_2": _seeded(seed + 2, _t5_encoder),
        "vae": _seeded(seed + 3, lambda: _vae(1, 1.5035, 0.1159)),
        "scheduler": FlowMatchEulerDiscreteScheduler(),
        "tokenizer": clip_tokenizer(),
        "tokenizer_2": t5_tokenizer(),
    }


# model type (the checkout's model registry key) -> recipe
RECIPES: dict[str, Callable[[int], tuple[str, dict[str, Any]]]] = {
    "sd3-5": _sd3_5_components,
    "flux1": _flux1_components,
}
SUPPORTED = tuple(RECIPES)
# Model types whose adapter builds its own tiny model from a path spelling: nothing to build.
# Only the sandbox has one (its toy MLP); a real checkout's types all need a recipe above.
SELF_BUILT = {"toy": "toy:seed={seed}"}
_MARKER = "ffgen-tiny.json"  # written last: a folder without it is an interrupted build


def build(model_type: str, folder: Path, seed: int = 0) -> Path:
    """Build (or reuse) the tiny pipeline of ``model_type`` under ``folder``; returns it."""
    marker = folder / _MARKER
    if marker.is_file():
        return folder
    import diffusers
    import torch

    class_name, components = RECIPES[model_type](seed)
    pipeline = getattr(diffusers, class_name)(**components)
    import shutil

    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    with torch.no_grad():
        pipeline.save_pretrained(tmp, safe_serialization=True)
    (tmp / _MARKER).write_text(json.dumps({"model_type": model_type, "seed": seed}) + "\n")
    if folder.exists() and not marker.is_file():  # a build interrupted before its marker
        shutil.rmtree(folder, ignore_errors=True)
    try:
        tmp.rename(folder)
    except OSError:  # another run finished the same build first: keep its copy
        shutil.rmtree(tmp, ignore_errors=True)
        if not marker.is_file():
            raise
    return folder
