from pathlib import Path

import pytest

from ffgen.errors import RefusedError
from ffgen.generate.plan import FileChange, Plan, Status
from ffgen.write import apply as apply_mod
from ffgen.write.apply import apply_plan


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

    def flaky(path, data, mode):
        calls["n"] += 1
        if calls["n"] == fail_on:
            raise OSError("disk full (injected)")
        real(path, data, mode)

    monkeypatch.setattr(apply_mod, "write_file", flaky)
    with pytest.raises(RefusedError, match="injected.*put back as it was"):
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


# --- deletes -----------------------------------------------------------------------------------


@pytest.fixture
def generated(tmp_path):
    """A checkout where an algorithm created a nested folder, next to a folder that is empty."""
    (tmp_path / "keep").mkdir()  # empty before the apply: must stay
    algo = tmp_path / "examples" / "algo" / "lora"
    algo.mkdir(parents=True)
    (algo / "default.yaml").write_text("a: 1\n")
    (tmp_path / "examples" / "other.yaml").write_text("b: 2\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "algo.py").write_text("X = 1\n")
    (tmp_path / "src" / "shared.py").write_text("S = 1\n")
    (tmp_path / "src" / "empty").mkdir()  # empty before, inside a folder that loses a file
    return tmp_path


def delete_plan() -> Plan:
    return Plan(
        "algo",
        (
            FileChange("examples/algo/lora/default.yaml", Status.DELETE, "a: 1\n", ""),
            FileChange("src/algo.py", Status.DELETE, "X = 1\n", ""),
            FileChange("src/shared.py", Status.UPDATE, "S = 1\n", "S = 2\n"),
            FileChange("src/kept.py", Status.KEPT, "K\n", "K\n"),
        ),
    )


def test_delete_removes_files_and_the_folders_it_emptied(generated):
    written = apply_plan(generated, delete_plan())
    assert [c.status for c in written] == [Status.DELETE, Status.DELETE, Status.UPDATE]
    assert snapshot(generated) == {"examples/other.yaml": "b: 2\n", "src/shared.py": "S = 2\n"}
    # examples/ still holds other.yaml; keep/ and src/empty/ were empty before and stay.
    assert dirs(generated) == {"examples", "keep", "src", "src/empty"}


def test_delete_stops_below_the_checkout_root(tmp_path):
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "f.py").write_text("F = 1\n")
    apply_plan(tmp_path, Plan("x", (FileChange("only/f.py", Status.DELETE, "F = 1\n", ""),)))
    assert tmp_path.is_dir() and list(tmp_path.iterdir()) == []


def test_delete_drops_the_module_bytecode_and_an_emptied_pycache(generated):
    cache = generated / "src" / "__pycache__"
    cache.mkdir()
    (cache / "algo.cpython-311.pyc").write_bytes(b"\0")
    (cache / "shared.cpython-311.pyc").write_bytes(b"\0")
    apply_plan(generated, delete_plan())
    assert sorted(p.name for p in cache.iterdir()) == ["shared.cpython-311.pyc"]


@pytest.mark.parametrize("fail_on", [1, 2])
def test_failure_after_deletes_restores_deleted_files_and_folders(generated, monkeypatch, fail_on):
    script = generated / "src" / "algo.py"
    script.chmod(0o750)
    before, before_dirs = snapshot(generated), dirs(generated)
    plan = Plan(
        "algo",
        (
            *delete_plan().changes[:2],
            FileChange("src/shared.py", Status.UPDATE, "S = 1\n", "S = 2\n"),
            FileChange("src/new/c.py", Status.CREATE, None, "C = 1\n"),
        ),
    )
    calls = {"n": 0}
    real = apply_mod.write_file

    def flaky(path, data, mode):
        calls["n"] += 1
        if calls["n"] == fail_on:
            raise OSError("disk full (injected)")
        real(path, data, mode)

    monkeypatch.setattr(apply_mod, "write_file", flaky)
    with pytest.raises(RefusedError, match="injected.*put back as it was"):
        apply_plan(generated, plan)
    assert snapshot(generated) == before
    assert dirs(generated) == before_dirs
    assert script.stat().st_mode & 0o777 == 0o750


def test_failure_while_removing_folders_restores_everything(generated, monkeypatch):
    before, before_dirs = snapshot(generated), dirs(generated)
    real = apply_mod._remove_emptied_folders

    def then_fail(root, deleted):
        real(root, deleted)
        raise OSError("injected after the folders went")

    monkeypatch.setattr(apply_mod, "_remove_emptied_folders", then_fail)
    with pytest.raises(RefusedError, match="injected.*put back as it was"):
        apply_plan(generated, delete_plan())
    assert snapshot(generated) == before
    assert dirs(generated) == before_dirs


def test_delete_of_a_file_changed_on_disk_is_refused(generated):
    (generated / "src" / "algo.py").write_text("X = 2  # the user's edit\n")
    before = snapshot(generated)
    with pytest.raises(RefusedError, match="src/algo.py changed on disk"):
        apply_plan(generated, delete_plan())
    assert snapshot(generated) == before


def test_delete_of_a_missing_file_is_refused(generated):
    (generated / "src" / "algo.py").unlink()
    with pytest.raises(RefusedError, match="changed on disk"):
        apply_plan(generated, delete_plan())
    assert (generated / "examples/algo/lora/default.yaml").exists()


# --- interrupts inside the process -------------------------------------------------------------


def test_sigterm_during_writes_rolls_back_and_restores_the_handler(tree, monkeypatch):
    import os
    import signal

    before, before_dirs = snapshot(tree), dirs(tree)
    previous = signal.getsignal(signal.SIGTERM)
    real = apply_mod.write_file
    calls = {"n": 0}

    def write_then_signal(path, data, mode):
        real(path, data, mode)
        calls["n"] += 1
        if calls["n"] == 2:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(apply_mod, "write_file", write_then_signal)
    with pytest.raises(apply_mod.Interrupted) as caught:
        apply_plan(tree, plan_for(tree))
    assert caught.value.exit_code == 128 + signal.SIGTERM
    assert "interrupted by SIGTERM" in caught.value.message
    assert snapshot(tree) == before
    assert dirs(tree) == before_dirs
    assert signal.getsignal(signal.SIGTERM) is previous


def test_sigterm_before_the_first_write_writes_nothing(tree, monkeypatch):
    import os
    import signal

    before = snapshot(tree)
    real = apply_mod._validate

    def validate_then_signal(root, writes):
        targets = real(root, writes)
        os.kill(os.getpid(), signal.SIGTERM)  # held back until the writes would start
        return targets

    monkeypatch.setattr(apply_mod, "_validate", validate_then_signal)
    with pytest.raises(apply_mod.Interrupted):
        apply_plan(tree, plan_for(tree))
    assert snapshot(tree) == before


def test_signal_after_the_last_write_reports_the_finished_apply(tree, monkeypatch):
    import os
    import signal

    from ffgen.write import lock

    seen = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    real = lock._release

    def signal_then_release(path, mine):
        os.kill(os.getpid(), signal.SIGTERM)  # the apply is complete: it must not roll back
        real(path, mine)

    monkeypatch.setattr(lock, "_release", signal_then_release)
    try:
        with pytest.raises(apply_mod.InterruptedAfterWrites) as caught:
            apply_plan(tree, plan_for(tree))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert caught.value.exit_code == 128 + signal.SIGTERM
    assert "after the last write" in caught.value.message
    assert f"3 file(s) written under {tree}" in caught.value.message
    assert seen == []  # reported as the command's outcome, not delivered a second time
    assert (tree / "pkg/a.py").read_text() == "A = 2\n"
    assert not (tree / ".ffgen").exists()


@pytest.mark.parametrize("parsed_first", [False, True])
def test_the_compile_check_takes_a_tree_parsed_moments_before(tmp_path, monkeypatch, parsed_first):
    """A module the conformance check just parsed is compiled from that tree (cheaper), and a
    module that compiles only as far as the parser is still refused, from the tree as from text."""
    import builtins

    from ffgen.checkout.view import CheckoutView

    compiled: list[type] = []
    real_compile = builtins.compile

    def spy(source, *args, **kwargs):
        compiled.append(type(source))
        return real_compile(source, *args, **kwargs)

    good, bad = "X = 1\n", "def f():\n    nonlocal x\n"  # parses; compiling refuses it
    rel = f"pkg/parsed_first_{parsed_first}.py"  # the memo is the process's: one path per case
    if parsed_first:
        for text in (good, bad):
            CheckoutView(tmp_path).python_tree(rel, text)
    monkeypatch.setattr(builtins, "compile", spy)
    apply_mod.validate_content(FileChange(rel, Status.CREATE, None, good))
    with pytest.raises(RefusedError, match="does not compile"):
        apply_mod.validate_content(FileChange(rel, Status.CREATE, None, bad))
    assert [c.__name__ for c in compiled] == (["Module"] * 2 if parsed_first else ["str"] * 2)
