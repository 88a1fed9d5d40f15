"""ffgen: generate and verify Flow-Factory training algorithms."""

__version__ = "0.1.0"


def _quiet_ctrl_c() -> None:
    """Run as the ``ffgen`` command, Ctrl+C while the modules load exits 130 without a
    traceback (``ffgen.entry.main`` puts Python's own handler back once it runs). Imported as a
    library, ffgen leaves the signal alone."""
    import os
    import signal
    import sys

    if not sys.argv or os.path.basename(sys.argv[0]) != "ffgen":
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return

    def exit_quietly(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGINT, exit_quietly)


_quiet_ctrl_c()
