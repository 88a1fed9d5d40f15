"""Rendering is Jinja2's own: StrictUndefined, one environment per process, and Jinja's
bytecode cache, which only ever saves time."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from ffgen.generate import render


def test_one_strict_environment_per_process():
    env = render._environment()
    assert env is render._environment()
    assert env.undefined is jinja2.StrictUndefined
    with pytest.raises(jinja2.UndefinedError, match="missing"):
        env.from_string("{{ missing }}").render()


def test_a_cache_it_cannot_write_only_costs_time(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.dont_write_bytecode", False)  # (the suite runs without bytecode)
    cache = render._bytecode_cache(jinja2)
    assert isinstance(cache, jinja2.FileSystemBytecodeCache)
    cache.directory = str(tmp_path / "gone")  # no such folder: every write fails
    env = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ x }}!"}), bytecode_cache=cache)
    assert env.get_template("t").render(x=1) == "1!"
    assert not (tmp_path / "gone").exists()


def test_compiled_templates_live_where_python_keeps_ffgen_s_bytecode(tmp_path, monkeypatch):
    import importlib.util

    # Python's own rule for a module beside the templates, prefix included.
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    monkeypatch.setattr("sys.pycache_prefix", str(tmp_path / "prefix"))
    beside = importlib.util.cache_from_source(str(render.templates_root() / "__init__.py"))
    assert beside.startswith(str(tmp_path / "prefix"))
    assert render._bytecode_cache(jinja2).directory == str(Path(beside).parent)
    monkeypatch.setattr("sys.dont_write_bytecode", True)  # -B: read, never written
    cache = render._bytecode_cache(jinja2)
    cache.directory = str(tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    env = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ x }}!"}), bytecode_cache=cache)
    assert env.get_template("t").render(x=1) == "1!"
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_render_writes_nothing_in_the_temporary_folder(tmp_path):
    import subprocess
    import sys

    env = {"TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home")}
    code = ("from ffgen.generate import render; "
            "render._environment().get_template(render.DOCS_TEMPLATE)")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []
