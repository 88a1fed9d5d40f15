"""ffgen: generate and verify Flow-Factory training algorithms."""

__version__ = "0.1.0"


def _quiet_ctrl_c() -> None:
    """Run as the ``ffgen`` command, Ctrl+C while the modules load exits 130 without a
    traceback (``ffgen.cli.main`` puts Python's own handler back once it runs). Imported as a
    library, ffgen leaves the signal alone."""
    import _signal  # the C module: ``signal`` builds its enums first, a window of its own
    import os
    import sys

    if not sys.argv or os.path.basename(sys.argv[0]) != "ffgen":
        return
    if _signal.getsignal(_signal.SIGINT) is not _signal.default_int_handler:
        return

    def exit_quietly(signum: int, frame: object) -> None:
        try:
            sys.stderr.write("error: interrupted (Ctrl+C)\n")
        except (OSError, ValueError):
            pass
        raise SystemExit(128 + signum)

    _signal.signal(_signal.SIGINT, exit_quietly)


_quiet_ctrl_c()
