"""`ffgen new` on a real terminal (a pty): asks only what is open, skips forced questions."""

import os
import pty
import select
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX-only")


class Terminal:
    def __init__(self, argv, cwd, columns=200):
        pid, fd = pty.fork()
        if pid == 0:  # child
            os.chdir(cwd)
            os.environ["COLUMNS"] = str(columns)
            os.execv(sys.executable, [sys.executable, "-m", "ffgen", *argv])
        self.pid, self.fd, self.buffer = pid, fd, ""

    def expect(self, text, timeout=30.0):
        deadline = time.monotonic() + timeout
        while text not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {text!r}; screen:\n{self.buffer}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.buffer += os.read(self.fd, 4096).decode(errors="replace")
                except OSError:  # child closed the terminal
                    break
        assert text in self.buffer, self.buffer

    def send(self, line):
        os.write(self.fd, (line + "\r").encode())

    def wait(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.buffer += os.read(self.fd, 4096).decode(errors="replace")
            except OSError:
                pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        os.kill(self.pid, 9)
        raise AssertionError(f"ffgen did not exit; screen:\n{self.buffer}")


def test_interactive_session_asks_open_questions_and_validates(sandbox):
    term = Terminal(
        ["new", "my-algo", "--checkout", str(sandbox), "--dry-run", "--model-type", "toy"],
        cwd=sandbox,
    )
    term.expect("acquisition")
    term.send("dataset")
    term.expect("skipping feedback = none")
    term.expect("skipping paradigm = decoupled")
    term.expect("dynamics")
    term.send("")  # default any
    term.expect("supervision")
    term.send("pictures")  # invalid: asked again
    term.expect("is not valid")
    term.send("demonstrations")
    term.expect("state")
    term.send("")  # default legacy
    term.expect("ownership")
    term.send("single")
    term.expect("finetune_type")
    term.send("lora")
    assert term.wait() == 0, term.buffer
    assert "OFFLINE_EXECUTION_CONTRACT" in term.buffer
    assert "CREATE" in term.buffer


FAITHFUL = __import__("pathlib").Path(__file__).parents[1] / "fixtures" / "faithful_checkout"
ANSI = __import__("re").compile(r"\x1b\[[0-9;?]*[A-Za-z]")
NUMBERED = __import__("re").compile(r"^\d+\. ")


def test_many_model_types_are_numbered_with_the_examples_favourite_as_default(tmp_path):
    """17 model types on one wrapped line were unreadable: they are listed one per line, the
    number or the name is accepted, and the default is the type most examples use (sd3-5)."""
    import shutil

    root = shutil.copytree(FAITHFUL, tmp_path / "checkout")
    term = Terminal(
        ["new", "my-algo", "--checkout", str(root), "--dry-run", "--acquisition", "dataset",
         "--supervision", "demonstrations", "--dynamics", "any", "--state", "legacy",
         "--ownership", "single", "--finetune-type", "lora"],
        cwd=root,
        columns=60,
    )
    term.expect("number or name")
    screen = ANSI.sub("", term.buffer)
    numbered = [x.strip() for x in screen.splitlines() if NUMBERED.match(x.strip())]
    assert len(numbered) >= 10 and numbered[0].startswith("1. ")
    assert "(sd3-5)" in screen  # the default the examples favour
    choice = next(line for line in numbered if line.endswith(" flux2"))
    term.send(choice.split(".")[0])  # answer with the number
    assert term.wait() == 0, term.buffer
    screen = ANSI.sub("", term.buffer)
    assert "examples/my_algo/lora/flux2/default.yaml" in screen
    # Prose wraps at the terminal's width; the diffs that follow the plan are never wrapped
    # (a wrapped diff line would no longer apply), so only the text before them is held to it.
    prose = screen.split("\n--- ", 1)[0]
    assert "--- " in screen and all(len(line) <= 60 for line in prose.splitlines()), screen


def test_json_on_a_terminal_stays_plain_and_parses(sandbox):
    """rich colours and wraps what it prints to a terminal; JSON for agents must not be."""
    import json

    term = Terminal(["list", "--checkout", str(sandbox), "--format", "json"], cwd=sandbox,
                    columns=40)
    assert term.wait() == 0, term.buffer
    data = json.loads(term.buffer.replace("\r\n", "\n"))
    assert {a["key"] for a in data["algorithms"]} >= {"sft", "offline-dpo"}
