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

"""Model adapter registry keyed by ``model.model_type``."""

from __future__ import annotations

import importlib

_MODEL_ADAPTER_REGISTRY: dict[str, str] = {
    "toy": "flow_factory.models.toy.ToyAdapter",
    "sd3-5": "flow_factory.models.sd3_5.SD3Adapter",
}


def get_model_adapter_class(identifier: str) -> type:
    """Adapter class for a registry key (case-insensitive) or a dotted path (lazy import)."""
    path = _MODEL_ADAPTER_REGISTRY.get(identifier.lower(), identifier)
    try:
        module_path, class_name = path.rsplit(".", 1)
        return getattr(importlib.import_module(module_path), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ImportError(
            f"Unknown model_type {identifier!r}; expected one of "
            f"{sorted(_MODEL_ADAPTER_REGISTRY)} or a dotted path ({exc})"
        ) from exc


def list_registered_models() -> dict[str, str]:
    """Copy of the registry (key -> dotted path)."""
    return dict(_MODEL_ADAPTER_REGISTRY)


__all__ = ["get_model_adapter_class", "list_registered_models"]
