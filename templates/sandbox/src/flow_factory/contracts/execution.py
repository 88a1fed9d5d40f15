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

"""Execution contracts: how a trainer acquires data and whether it receives runtime feedback."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class AcquisitionMode(str, Enum):
    """Where training inputs come from."""

    GENERATION = "generation"
    DATASET = "dataset"


class FeedbackMode(str, Enum):
    """Whether acquired samples receive runtime rewards."""

    RUNTIME_REWARD = "runtime_reward"
    NONE = "none"


@dataclass(frozen=True)
class ExecutionContract:
    """Pair of acquisition and feedback modes; strings are not coerced."""

    acquisition: AcquisitionMode
    feedback: FeedbackMode

    def __post_init__(self) -> None:
        if not isinstance(self.acquisition, AcquisitionMode):
            raise TypeError(
                f"acquisition must be an AcquisitionMode member, got {self.acquisition!r}"
            )
        if not isinstance(self.feedback, FeedbackMode):
            raise TypeError(f"feedback must be a FeedbackMode member, got {self.feedback!r}")


ONLINE_EXECUTION_CONTRACT = ExecutionContract(
    AcquisitionMode.GENERATION, FeedbackMode.RUNTIME_REWARD
)
ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT = ExecutionContract(
    AcquisitionMode.GENERATION, FeedbackMode.NONE
)
OFFLINE_EXECUTION_CONTRACT = ExecutionContract(AcquisitionMode.DATASET, FeedbackMode.NONE)

__all__ = [
    "AcquisitionMode",
    "FeedbackMode",
    "ExecutionContract",
    "ONLINE_EXECUTION_CONTRACT",
    "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT",
    "OFFLINE_EXECUTION_CONTRACT",
]
