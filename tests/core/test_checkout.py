import pytest

from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView, Overlay, find_root
from ffgen.errors import RefusedError, UsageError


def touch(root, *rels):
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


def test_recent_layout_is_found_from_a_subdirectory(tmp_path):
    touch(tmp_path, *layout.RECENT_LAYOUT_MARKERS)
    sub = tmp_path / "src" / "flow_factory" / "hparams"
    assert find_root(None, start=sub) == tmp_path.resolve()


def test_old_layout_is_refused_naming_what_is_missing(tmp_path):
    touch(
        tmp_path,
        "src/flow_factory/__init__.py",
        layout.OLD_TRAINING_ARGS_MODULE,
        "src/flow_factory/trainers/grpo.py",
    )
    with pytest.raises(RefusedError, match="older Flow-Factory layout.*contracts/execution.py"):
        find_root(tmp_path)


def test_not_a_checkout(tmp_path):
    with pytest.raises(UsageError, match="not a Flow-Factory checkout"):
        find_root(tmp_path)
    with pytest.raises(UsageError, match="no Flow-Factory checkout found"):
        find_root(None, start=tmp_path)
    with pytest.raises(UsageError, match="no such directory"):
        find_root(tmp_path / "nope")


def test_incomplete_recent_layout_names_the_missing_file(tmp_path):
    touch(tmp_path, *layout.RECENT_LAYOUT_MARKERS[:-1])
    with pytest.raises(RefusedError, match="trainers/abc.py"):
        find_root(tmp_path)


def test_overlay_shows_planned_changes_over_disk(tmp_path):
    touch(tmp_path, "a/x.py")
    view = Overlay(base=CheckoutView(tmp_path), changes={"a/y.py": "Y", "a/x.py": "X"})
    assert view.read("a/x.py") == "X" and view.read("a/y.py") == "Y"
    assert view.files("a/*.py") == ["a/x.py", "a/y.py"]
    assert view.is_dir("a") and view.exists("a/y.py") and not view.exists("a/z.py")


@pytest.mark.parametrize("pattern", [
    "**/*", "**/*.py", "src/**/*.py", "src/*/__init__.py", "examples/**/*", "*", "src/a*/*.py",
    "src/**/x.py", "**/.hidden",
])
def test_files_finds_what_path_glob_finds(tmp_path, pattern):
    """One listing per folder however often ``**`` comes back to it, and the same files as
    ``Path.glob``: links to files count, links to folders are not descended by ``**``, a broken
    link and a folder are not files."""
    touch(tmp_path, "src/a/x.py", "src/a/__init__.py", "src/ab/y.py", "src/ab/deep/x.py",
          "examples/k/lora/m/c.yaml", "examples/k/full/m/c.yml", "top.py", ".hidden",
          "src/a/.hidden")
    (tmp_path / "src/linked").symlink_to(tmp_path / "src/a", target_is_directory=True)
    (tmp_path / "src/ab/link.py").symlink_to(tmp_path / "src/a/x.py")
    (tmp_path / "src/ab/broken.py").symlink_to(tmp_path / "nowhere.py")
    expected = sorted(
        p.relative_to(tmp_path).as_posix() for p in tmp_path.glob(pattern) if p.is_file()
    )
    assert CheckoutView(tmp_path).files(pattern) == expected
