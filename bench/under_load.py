"""The test suite on a busy machine: N processes spinning on the CPU (and, if asked, the load
harness bench/load.py against a server of its own) beside the README's test command.

A test that passes only on a quiet machine fails here: a wall-clock bound a busy machine
misses, a read whose deadline is shorter than a loaded server's answer, an order that the
timing decided. The hogs are bounded in time themselves (each stops after --minutes even if
this script is killed), the test command is stopped at --minutes, and everything started here
is stopped on the way out, whatever happened.

    .venv/bin/python bench/under_load.py                      # 8 hogs, the whole suite
    .venv/bin/python bench/under_load.py --hogs 12 --runs 3 -- tests/e2e/test_bots.py -x
    .venv/bin/python bench/under_load.py --with-load          # bench/load.py beside too

Arguments after `--` go to pytest (instead of none: the whole suite). Prints, per run, the
test command's exit status and duration and the 1-minute load average seen meanwhile
(min/mean/max, sampled every few seconds); exits non-zero if a run failed.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
PYTHON = REPOSITORY / ".venv" / "bin" / "python"
# The README's test command, run from the repository.
TEST_COMMAND = [str(PYTHON), "-m", "pytest"]
# bench/load.py beside the tests: matches between CLIP clients against its own server (a
# temporary SQLite database), no comparison with the echo server.
LOAD_ARGUMENTS = ["--sessions", "200", "--matches", "50", "--scenarios", "matches",
                  "--targets", "fibs"]
LOAD_SAMPLE_SECONDS = 5.0
STOP_GRACE_SECONDS = 10.0


def spin(seconds: float) -> str:
    """A hog's program: busy until `seconds` have passed, then it ends by itself."""
    return f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass"


def started(command: list[str]) -> subprocess.Popen[bytes]:
    """In a session of its own, so that stopping it stops its children too."""
    return subprocess.Popen(command, cwd=REPOSITORY, start_new_session=True)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process's group, SIGKILL if it is still there after the grace."""
    if process.poll() is not None:
        return
    for signal_number in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal_number)
        try:
            process.wait(STOP_GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def beside(commands: list[list[str]]) -> Iterator[None]:
    """`commands` running for the duration of the block, stopped on the way out."""
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for command in commands:
            processes.append(started(command))
        yield
    finally:
        for process in processes:
            stop(process)


class LoadSampler:
    """The 1-minute load average, sampled in a thread until stopped."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stopped.wait(LOAD_SAMPLE_SECONDS):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopped.set()
        self._thread.join()

    def summary(self) -> str:
        if not self.samples:
            return "load: no sample"
        return (f"load (1 min) min {min(self.samples):.1f} mean "
                f"{statistics.mean(self.samples):.1f} max {max(self.samples):.1f}")


def run_tests(pytest_arguments: list[str], ceiling: float) -> tuple[int | None, float]:
    """The test command's exit status (None: stopped at the ceiling) and its duration."""
    began = time.monotonic()
    tests = started(TEST_COMMAND + pytest_arguments)
    try:
        status: int | None = tests.wait(ceiling)
    except subprocess.TimeoutExpired:
        status = None
    finally:
        stop(tests)
    return status, time.monotonic() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hogs", type=int, default=8, help="busy processes (default 8)")
    parser.add_argument("--with-load", action="store_true",
                        help="bench/load.py beside the tests too")
    parser.add_argument("--runs", type=int, default=1, help="the test command so many times")
    parser.add_argument("--minutes", type=float, default=30.0,
                        help="the most one run may take: the tests and the hogs stop then")
    parser.add_argument("pytest_arguments", nargs="*",
                        help="after --: for pytest (default: the whole suite)")
    arguments = parser.parse_args()
    # A SIGTERM unwinds like an exception: the `finally`s stop what was started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    ceiling = arguments.minutes * 60
    failed = 0
    for run in range(1, arguments.runs + 1):
        others = [[sys.executable, "-c", spin(ceiling)] for _ in range(arguments.hogs)]
        if arguments.with_load:
            others.append([str(PYTHON), "bench/load.py", *LOAD_ARGUMENTS,
                           "--duration", str(ceiling)])
        with beside(others), LoadSampler() as load:
            status, took = run_tests(arguments.pytest_arguments, ceiling)
        outcome = "stopped at the ceiling" if status is None else f"exit {status}"
        print(f"run {run}/{arguments.runs}: {outcome} in {took:.0f} s, {arguments.hogs} hogs"
              f"{' and bench/load.py' if arguments.with_load else ''}, {load.summary()}",
              flush=True)
        failed += status != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
