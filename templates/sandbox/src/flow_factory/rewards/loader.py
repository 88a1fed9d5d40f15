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

"""``load_reward_model``: build the reward model one ``rewards`` entry names."""

from __future__ import annotations

from typing import Any

from .abc import BaseRewardModel
from .registry import get_reward_model_class


def load_reward_model(config: Any, accelerator: Any) -> BaseRewardModel:
    """The reward model of ``config.reward_model``, built with ``config`` and ``accelerator``."""
    return get_reward_model_class(config.reward_model)(config=config, accelerator=accelerator)


__all__ = ["load_reward_model"]
