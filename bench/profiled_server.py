"""`python -m fibs_server` under cProfile switched by signals: SIGUSR1 starts profiling the
event loop's thread, SIGUSR2 stops it and writes the stats (pstats) to the file named first.

    python bench/profiled_server.py FILE <python -m fibs_server's arguments>

bench/load.py --profile FILE runs the server so around its `logins` phase."""
from __future__ import annotations

import cProfile
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fibs_server.__main__ import main  # noqa: E402


def run() -> None:
    target = sys.argv[1]
    profiler = cProfile.Profile(time.process_time)
    signal.signal(signal.SIGUSR1, lambda number, frame: profiler.enable())

    def stop(number: int, frame: object) -> None:
        profiler.disable()
        profiler.dump_stats(target)
    signal.signal(signal.SIGUSR2, stop)
    main(sys.argv[2:])


if __name__ == "__main__":
    run()
