"""The open record's monthly files (protocol/views/record_files.py names them): every finished
rated match of a month as JSON (`public_reads.open_record`) and as `.mat`, and the month's
dice statistics. Written by `fibs-server dump-month` and, for the month just ended, by the
server itself (`MonthlyRecord`, the holder of the `records` lease).

Writing a month again gives the same bytes (gzip without a time stamp, each `.mat` dated by
its match's end): a month is written to temporary names and renamed into place, its
statistics last, so a reader never sees half a month and the server never writes one twice.
"""
from __future__ import annotations

import asyncio
import gzip
import io
import json
import logging
import os
import pathlib
import tarfile
import time
from collections.abc import Callable
from typing import Any

from fibs_server.lobby.commands.archive_commands import match_file
from fibs_server.lobby.nodes.leases import stop_task
from fibs_server.lobby.play.public_reads import dice_statistics, open_record
from fibs_server.lobby.ports.analysis_records import StoredAnalysis
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.protocol.views.record_files import README, README_TEXT, Month
from fibs_server.rules.dice_stats import empty_tally
from fibs_server.store import SqlStore

log = logging.getLogger(__name__)

RECORDS = "records"  # the lease whose holder writes the month just ended
PAGE = 100  # matches read from the store at a time
CHECK_SECONDS = 3600.0  # how often the server looks whether a month has ended unwritten
_PART = ".part"


class _MonthWriter:
    """A month's files being written under their temporary names (in a thread: each call
    writes a page)."""

    def __init__(self, folder: pathlib.Path, month: Month) -> None:
        self.folder = folder
        self.month = month
        self.tally = empty_tally()
        self.matches = 0
        self._matches_raw = self._part(month.matches_file).open("wb")
        self._lines = gzip.GzipFile(filename="", mode="wb", fileobj=self._matches_raw, mtime=0)
        self._mat_raw = self._part(month.mat_file).open("wb")
        self._mat_zipped = gzip.GzipFile(filename="", mode="wb", fileobj=self._mat_raw, mtime=0)
        self._mats = tarfile.open(fileobj=self._mat_zipped, mode="w", format=tarfile.PAX_FORMAT)

    def _part(self, name: str) -> pathlib.Path:
        return self.folder / (name + _PART)

    def add(self, page: list[tuple[MatchRecord, StoredAnalysis | None]]) -> None:
        for record, analysis in page:
            line = json.dumps(open_record(record, analysis), sort_keys=True,
                              separators=(",", ":"))
            self._lines.write(line.encode() + b"\n")
            text = match_file(record).encode()
            member = tarfile.TarInfo(f"{record.match_id}.mat")
            member.size, member.mtime = len(text), record.finished_at or 0
            self._mats.addfile(member, io.BytesIO(text))
            if record.dice is not None:
                for rolls in record.dice.tally:  # each player's and the opening rolls
                    self.tally = [a + b for a, b in zip(self.tally, rolls, strict=True)]
            self.matches += 1

    def close(self) -> None:
        for stream in (self._mats, self._mat_zipped, self._lines):
            stream.close()
        for raw in (self._mat_raw, self._matches_raw):
            if not raw.closed:
                raw.flush()
                os.fsync(raw.fileno())  # on disk before the statistics say the month is
                raw.close()

    def finish(self) -> dict[str, Any]:
        """Renames the files into place, the statistics last; what the statistics say."""
        self.close()
        summary = {"month": str(self.month), "matches": self.matches,
                   "files": [self.month.matches_file, self.month.mat_file],
                   "dice": dice_statistics(self.tally)}
        _write_text(self.folder / README, README_TEXT)
        for name in (self.month.matches_file, self.month.mat_file):
            os.replace(self._part(name), self.folder / name)
        _write_text(self.folder / self.month.dice_file,
                    json.dumps(summary, sort_keys=True, indent=1) + "\n")
        return summary

    def abandon(self) -> None:
        self.close()
        for name in (self.month.matches_file, self.month.mat_file):
            self._part(name).unlink(missing_ok=True)


def _write_text(path: pathlib.Path, text: str) -> None:
    """`text` in `path`, whole or not at all."""
    part = path.with_name(path.name + _PART)
    with part.open("w") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    os.replace(part, path)


async def write_month(store: SqlStore, month: Month, folder: pathlib.Path) -> dict[str, Any]:
    """Write `month`'s files in `folder` (made if need be), replacing any; the month's dice
    summary (what its `.dice.json` holds)."""
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    writer = await asyncio.to_thread(_MonthWriter, folder, month)
    try:
        after = 0
        while page := await store.rated_matches_finished(month.start, month.end, after, PAGE):
            analyses = [await store.analysis_of(record.match_id) for record in page]
            await asyncio.to_thread(writer.add, list(zip(page, analyses, strict=True)))
            after = page[-1].match_id
        return await asyncio.to_thread(writer.finish)
    except BaseException:
        await asyncio.to_thread(writer.abandon)
        raise


class MonthlyRecord:
    """The `records` lease's duty (`lobby.nodes.leases.Duty`): once a month has ended and its
    files are not in `folder`, write them; looked at when the lease is gained and every
    `period` seconds after. The files are the only state: a restart, or another node taking
    the lease over, writes a month at most once more, with the same bytes."""

    def __init__(self, store: SqlStore, folder: pathlib.Path,
                 wall_clock: Callable[[], float] = time.time,
                 period: float = CHECK_SECONDS) -> None:
        self.store = store
        self.folder = folder
        self.wall_clock = wall_clock
        self.period = period
        self.written: list[Month] = []  # by this duty, in order
        self._task: asyncio.Task[None] | None = None

    async def begin(self) -> None:
        self._task = asyncio.create_task(self._checking(), name="open record")

    async def end(self) -> None:
        await stop_task(self._task)
        self._task = None

    async def write_ended_month(self) -> None:
        """The month just ended, if its files are not there yet."""
        month = Month.of(self.wall_clock()).previous
        if await asyncio.to_thread((self.folder / month.dice_file).exists):
            return
        summary = await write_month(self.store, month, self.folder)
        self.written.append(month)
        log.info("wrote the open record of %s: %d matches", month, summary["matches"])

    async def _checking(self) -> None:
        while True:
            try:
                await self.write_ended_month()
            except Exception:
                log.exception("writing the open record failed; trying again later")
            await asyncio.sleep(self.period)
