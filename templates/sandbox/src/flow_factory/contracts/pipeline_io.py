"""Pipeline input/output media contract (what a model consumes and produces)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MediaType = Literal["image", "video", "audio"]
MEDIA_TYPES: tuple[str, ...] = ("image", "video", "audio")


@dataclass(frozen=True)
class PipelineIOContract:
    """Media types a pipeline takes as input and produces as output."""

    input_media: tuple[str, ...] = ()
    output_media: tuple[str, ...] = ("image",)

    def __post_init__(self) -> None:
        for media in (*self.input_media, *self.output_media):
            if media not in MEDIA_TYPES:
                raise ValueError(f"media type must be one of {MEDIA_TYPES}, got {media!r}")

    def accepts_output(self, media_type: str) -> bool:
        """Return True when ``media_type`` is one of the produced media."""
        return media_type in self.output_media


__all__ = ["MEDIA_TYPES", "MediaType", "PipelineIOContract"]
