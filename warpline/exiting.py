"""How a ``warpline`` or ``warpline-mcp`` process ends: without the interpreter's teardown.

A command is over once its answer is written and its store is closed. What a normal exit
does after that (freeing every module and object, then libgit2's and OpenSSL's own
clean-up through the C library's exit handlers) is work nobody waits for, except the
caller who waits for the process: 12-15 ms of a ~110 ms ``ingest-commit`` (measured:
bench/README). ``exit_now`` keeps what an exit must still do, in the order Python
does it: the ``atexit`` handlers (logging's flush, multiprocessing's child clean-up,
``weakref.finalize`` callbacks, a coverage run's save), then stdout and stderr flushed;
then the process ends with the exit code.

It exits the usual way while another thread is alive (a normal exit waits for it, and so
must we) and under a tracer or profiler (``python -m cProfile -m warpline.cli``, a
debugger, coverage's tracer: they write their results after the program returns). Only the
console scripts and ``python -m`` end through here; ``main()`` called in-process returns
its code.
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import NoReturn, TextIO

# What CPython exits with when flushing stdout fails at exit (the reader went away).
EXIT_STDOUT_LOST = 120


def exit_now(code: int) -> NoReturn:
    if sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(code)  # a debugger, coverage or a profiler finishes after the program returns
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()  # what the interpreter itself calls at exit
    if not _flushed(sys.stdout):
        code = code or EXIT_STDOUT_LOST
    _flushed(sys.stderr)
    os._exit(code)


def _flushed(stream: TextIO | None) -> bool:
    try:
        if stream is not None:
            stream.flush()
    except (OSError, ValueError):  # a closed pipe, or the stream closed by the program
        return False
    return True
