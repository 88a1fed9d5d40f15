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

"""Acceleration argument group (``acceleration:`` in YAML). The toy model has nothing to
accelerate: the group only keeps the keys it is given (in ``extra_kwargs``)."""

from __future__ import annotations

from dataclasses import dataclass

from .abc import ArgABC


@dataclass
class AccelerationArguments(ArgABC):
    """No fields: every key lands in ``extra_kwargs``."""


__all__ = ["AccelerationArguments"]
