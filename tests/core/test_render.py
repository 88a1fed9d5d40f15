"""Rendering is Jinja2's own: StrictUndefined, one environment per process, and Jinja's
bytecode cache, which only ever saves time."""

from __future__ import annotations

import jinja2
import pytest

from ffgen.generate import render


def test_one_strict_environment_per_process():
    env = render._environment()
    assert env is render._environment()
    assert env.undefined is jinja2.StrictUndefined
    with pytest.raises(jinja2.UndefinedError, match="missing"):
        env.from_string("{{ missing }}").render()


def test_a_cache_it_cannot_write_only_costs_time(tmp_path):
    cache = render._bytecode_cache(jinja2)
    assert isinstance(cache, jinja2.FileSystemBytecodeCache)
    cache.directory = str(tmp_path / "gone")  # no such folder: every write fails
    env = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ x }}!"}), bytecode_cache=cache)
    assert env.get_template("t").render(x=1) == "1!"
    assert not (tmp_path / "gone").exists()

