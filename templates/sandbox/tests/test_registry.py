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

"""Both registries agree on keys and execution contracts."""

from flow_factory.hparams.training_args import (
    get_training_args_class,
    list_registered_training_args,
)
from flow_factory.trainers.registry import get_trainer_class, list_registered_trainers


def test_registries_have_equal_keys():
    assert set(list_registered_training_args()) == set(list_registered_trainers())


def test_contracts_agree():
    for key in list_registered_trainers():
        args_cls = get_training_args_class(key)
        trainer_cls = get_trainer_class(key)
        assert args_cls.execution_contract == trainer_cls.execution_contract, key
