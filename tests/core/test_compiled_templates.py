"""The compiled templates shipped in ffgen/generate/compiled/ are exactly what Jinja makes of the
template sources today (pointed at ffgen's runtime), and a stale compiled form is never rendered.

Regenerate them with ``python -m ffgen.generate.render --write``.
"""

from __future__ import annotations

import os
import shutil

import jinja2
import pytest

from ffgen.generate import render
from ffgen.generate.template_env import CompiledTemplates
from ffgen.skill import SKILL_TEMPLATE, render_skill

REGENERATE = "run python -m ffgen.generate.render --write"


def _files(folder):
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.py"))}


def test_compiled_templates_match_their_sources(tmp_path):
    fresh = tmp_path / "compiled"
    render.compile_templates(render.templates_root(), fresh)
    shipped, expected = _files(render.COMPILED), _files(fresh)
    assert sorted(shipped) == sorted(expected), f"templates added or removed: {REGENERATE}"
    stale = [name for name in expected if shipped[name] != expected[name]]
    assert not stale, f"{len(stale)} compiled template(s) are stale: {REGENERATE}"
    assert render.compiled_is_current(render.templates_root(), render.COMPILED)


def test_renders_go_through_the_compiled_form_and_read_the_same(monkeypatch):
    render._environment.cache_clear()
    monkeypatch.setattr(render, "_environment", render._environment.__wrapped__)
    assert isinstance(render._environment(), CompiledTemplates), f"stale: {REGENERATE}"
    compiled = render_skill()
    monkeypatch.setattr(render, "COMPILED", render.COMPILED.parent / "missing")
    assert isinstance(render._environment().loader, jinja2.FileSystemLoader)
    assert render_skill() == compiled


def test_the_stamp_changes_with_any_template_byte_and_any_added_or_removed_one(tmp_path):
    root = tmp_path / "templates"
    shutil.copytree(render.templates_root(), root)
    stamps = [render.sources_stamp(root)]
    source = root / render.DOCS_TEMPLATE
    data = source.read_bytes()
    source.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])  # one bit of one byte
    stamps.append(render.sources_stamp(root))
    source.write_bytes(data)
    assert render.sources_stamp(root) == stamps[0]
    os.utime(source, (0, 0))  # times prove nothing: the same bytes are the same stamp
    assert render.sources_stamp(root) == stamps[0]
    added = root / "algorithm" / "families" / "deeper" / "new.py.jinja"
    added.parent.mkdir()
    added.write_text("")
    stamps.append(render.sources_stamp(root))
    added.unlink()
    (root / render.DOCS_TEMPLATE).rename(root / "algorithm" / "docs2.md.jinja")
    stamps.append(render.sources_stamp(root))
    (root / "algorithm" / "docs2.md.jinja").unlink()
    stamps.append(render.sources_stamp(root))
    (root / "sandbox" / "notes.txt").write_text("not a template")
    assert render.sources_stamp(root) == stamps[-1]
    assert len(set(stamps)) == len(stamps)
    # the sandbox is copied, never rendered (the check skips it): compiling refuses a template
    (root / "sandbox" / "stray.py.jinja").write_text("{{ x }}")
    with pytest.raises(RuntimeError, match="stray.py.jinja"):
        render.compile_templates(root, tmp_path / "compiled")


def test_an_edited_template_is_rendered_from_its_source(tmp_path, monkeypatch):
    root = tmp_path / "templates"
    shutil.copytree(render.templates_root(), root)
    source = root / SKILL_TEMPLATE
    source.write_text(source.read_text(encoding="utf-8") + "edited after compiling\n")
    assert not render.compiled_is_current(root, render.COMPILED)
    monkeypatch.setattr(render, "templates_root", lambda: root)
    monkeypatch.setattr(render, "_environment", render._environment.__wrapped__)
    assert render_skill().endswith("edited after compiling\n")


def test_a_template_no_context_changes_is_restyled_ahead_of_time_and_the_same(monkeypatch):
    from ffgen.generate import restyle_cache
    from ffgen.generate.restyle import typing_generics

    names = restyle_cache.constant_templates(render.templates_root())
    assert render.CHECKLIST_TEMPLATE in names  # the big one: 60 KB of Python
    text = render._environment().get_template(render.CHECKLIST_TEMPLATE).render()
    stored = restyle_cache.known_typing(text)
    assert stored is not None, f"stale: {REGENERATE}"
    assert stored == typing_generics(text) != text
    assert restyle_cache.known_typing(text + "\n") is None  # any other text: restyled as before
    restyle_cache._stored.cache_clear()
    monkeypatch.setattr(restyle_cache, "code_stamp", lambda: "other restyling code")
    try:
        assert restyle_cache.known_typing(text) is None  # made by other code: not used
    finally:
        restyle_cache._stored.cache_clear()


def test_a_stored_text_is_known_to_compile_under_any_comment_header():
    from ffgen.generate import restyle_cache
    from ffgen.generate.restyle import typing_generics

    text = render._environment().get_template(render.CHECKLIST_TEMPLATE).render()
    header = "# Copyright 2026 Someone\n#\n# Licensed as it says.\n"
    for form in (text, typing_generics(text)):
        assert restyle_cache.known_to_compile(form), f"stale: {REGENERATE}"
        assert restyle_cache.known_to_compile(f"{header}\n{form}")
    assert not restyle_cache.known_to_compile(text + "x = (\n")  # any other text: compiled
    assert not restyle_cache.known_to_compile(f"{header}x = (\n{text}")  # code in the header
    assert not restyle_cache.known_to_compile(f"{header}{text}")  # not as restyle joins them
    assert not restyle_cache.known_to_compile(f"# -*- coding: latin-1 -*-\n{header}\n{text}")


def test_apply_compiles_every_python_text_but_a_stored_one(monkeypatch):
    from ffgen.errors import RefusedError
    from ffgen.generate.plan import FileChange, Status
    from ffgen.write import apply

    compiled = []
    real = compile
    monkeypatch.setattr(apply, "compile", lambda *a, **k: compiled.append(a[1]) or real(*a, **k),
                        raising=False)
    text = render._environment().get_template(render.CHECKLIST_TEMPLATE).render()
    apply.validate_content(FileChange("tests/trainers/checklist.py", Status.CREATE, None,
                                      f"# Header\n\n{text}"))
    assert compiled == []
    with pytest.raises(RefusedError, match="does not compile"):
        apply.validate_content(FileChange("tests/x.py", Status.CREATE, None, text + "x = (\n"))
    assert compiled == ["tests/x.py"]
