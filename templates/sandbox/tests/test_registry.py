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
