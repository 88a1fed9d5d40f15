"""`ffgen new` on a real terminal (a pty): asks only what is open, skips forced questions."""

import os
import pty
import select
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX-only")


class Terminal:
    def __init__(self, argv, cwd):
        pid, fd = pty.fork()
        if pid == 0:  # child
            os.chdir(cwd)
            os.environ["COLUMNS"] = "200"
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
