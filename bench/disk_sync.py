"""How long this machine's disk takes to make a small write durable: the cost of every
commit the store makes with `synchronous=FULL` (docs/STORE.md), and what no code of ours
changes. Writes --size bytes and fsyncs them, --rate times a second, for --duration seconds,
in a file under --directory, and reports the fsync latency.

    .venv/bin/python bench/disk_sync.py --directory /var/tmp --duration 60
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(directory: str, size: int, rate: float, duration: float) -> list[float]:
    """Each fsync's wall time in ms; the file is emptied now and then, as a WAL is."""
    latencies = []
    block = os.urandom(size)
    with tempfile.NamedTemporaryFile(dir=directory) as file:
        end = time.monotonic() + duration
        while time.monotonic() < end:
            os.write(file.fileno(), block)
            started = time.perf_counter()
            os.fsync(file.fileno())
            latencies.append((time.perf_counter() - started) * 1000)
            if len(latencies) % 1000 == 0:
                os.ftruncate(file.fileno(), 0)
            time.sleep(1 / rate)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directory", default=tempfile.gettempdir())
    parser.add_argument("--size", type=int, default=16_384, help="bytes per write")
    parser.add_argument("--rate", type=float, default=300.0, help="fsyncs a second at most")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds")
    arguments = parser.parse_args()
    ordered = sorted(measure(arguments.directory, arguments.size, arguments.rate,
                             arguments.duration))
    slow = sum(1 for latency in ordered if latency > 50)
    print(f"{len(ordered)} fsyncs of {arguments.size} bytes in {arguments.directory}: "
          f"p50 {percentile(ordered, 0.5):.2f} p99 {percentile(ordered, 0.99):.2f} "
          f"p99.9 {percentile(ordered, 0.999):.2f} max {ordered[-1]:.2f} ms; "
          f"{slow} over 50 ms")


if __name__ == "__main__":
    main()
