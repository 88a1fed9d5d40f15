from pathlib import Path

import pytest

from ffgen import apply as apply_mod
from ffgen.apply import apply_plan
from ffgen.errors import RefusedError
from ffgen.plan import FileChange, Plan, Status


def snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def dirs(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir()}


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    (tmp_path / "pkg" / "b.py").write_text("B = 1\n")
    return tmp_path


def plan_for(tree: Path) -> Plan:
    return Plan(
        key="x",
        changes=(
            FileChange("pkg/a.py", Status.UPDATE, "A = 1\n", "A = 2\n"),
            FileChange("pkg/new/deep/c.py", Status.CREATE, None, "C = 1\n"),
            FileChange("pkg/b.py", Status.UPDATE, "B = 1\n", "B = 2\n"),
            FileChange("pkg/same.py", Status.IDENTICAL, "S\n", "S\n"),
        ),
    )


def test_apply_writes_creates_and_updates(tree):
    written = apply_plan(tree, plan_for(tree))
    assert [c.path for c in written] == ["pkg/a.py", "pkg/new/deep/c.py", "pkg/b.py"]
    assert (tree / "pkg/a.py").read_text() == "A = 2\n"
    assert (tree / "pkg/new/deep/c.py").read_text() == "C = 1\n"


@pytest.mark.parametrize("fail_on", [1, 2, 3])
def test_failure_during_apply_restores_every_file(tree, monkeypatch, fail_on):
    before, before_dirs = snapshot(tree), dirs(tree)
    calls = {"n": 0}
    real = apply_mod.write_file

    def flaky(path, text):
        calls["n"] += 1
        if calls["n"] == fail_on:
            raise OSError("disk full (injected)")
        real(path, text)

    monkeypatch.setattr(apply_mod, "write_file", flaky)
    with pytest.raises(OSError, match="injected"):
        apply_plan(tree, plan_for(tree))
    monkeypatch.setattr(apply_mod, "write_file", real)
    assert snapshot(tree) == before
    assert dirs(tree) == before_dirs
    assert not list(tree.rglob("*.ffgen-tmp"))


def test_invalid_python_is_refused_before_any_write(tree):
    before = snapshot(tree)
    plan = Plan(
        "x",
        (
            FileChange("pkg/a.py", Status.UPDATE, "A = 1\n", "A = 2\n"),
            FileChange("pkg/bad.py", Status.CREATE, None, "def (:\n"),
        ),
    )
    with pytest.raises(RefusedError, match="does not compile"):
        apply_plan(tree, plan)
    assert snapshot(tree) == before


def test_invalid_yaml_is_refused_before_any_write(tree):
    before = snapshot(tree)
    plan = Plan("x", (FileChange("ex.yaml", Status.CREATE, None, "a: [1, 2\n"),))
    with pytest.raises(RefusedError, match="YAML does not parse"):
        apply_plan(tree, plan)
    assert snapshot(tree) == before


def test_file_changed_since_plan_is_refused(tree):
    (tree / "pkg/b.py").write_text("B = 99\n")
    before = snapshot(tree)
    with pytest.raises(RefusedError, match="changed on disk"):
        apply_plan(tree, plan_for(tree))
    assert snapshot(tree) == before


def test_plan_with_conflicts_is_never_applied(tree):
    before = snapshot(tree)
    plan = Plan("x", (FileChange("pkg/a.py", Status.CONFLICT, "A = 1\n", "A = 3\n"),))
    with pytest.raises(RefusedError):
        apply_plan(tree, plan)
    assert snapshot(tree) == before
