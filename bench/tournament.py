"""A Swiss tournament beside run E: what running one costs the people playing.

Each run is bench/load.py's matches phase (its flags, run E by default figures below) on a
server of its own, once alone and once with a Swiss tournament of --players scripted
players beside it: they sign up as the phase starts (a `when` tournament: it starts at the
director's next pass), and each plays the 1-point matches the director starts for it with
the e2e bot's engine-driven play at a person's pace (0.5-1.5 s a decision), round after
round, until the phase ends. With --control, a third kind: the same players, each pair
playing one 1-point match of its own (`invite ... timer 60`, `join`), timed as the Swiss's
first round is, so that what the tournament costs apart from its players' matches shows. The kinds of run
alternate (--runs of each), and the table gives people's move latency (the run E matches,
after --warmup) with and without it.

    TMPDIR=/dev/shm .venv/bin/python bench/tournament.py --sessions 2002 --matches 1000 \\
        --duration 90 --warmup 45 --players 128 --runs 2
"""
from __future__ import annotations

import asyncio
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/load.py
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.e2e.bot

import load  # noqa: E402

CREATED = re.compile(r"Tournament (\d+): created\..*")
ROUND_BEGINS = re.compile(r"Tournament \d+: round (\d+) of \d+ begins\.")
WON = "You win the 1 point match"
INVITED = re.compile(r"Type 'join (\S+)' to accept\.")


class TournamentWorker(load.Worker):
    async def tournament(self, port: int, names: list[str], rounds: int,
                         duration: float) -> dict:
        """`names` log in; the first creates the Swiss (`rounds` 0: none, for the control
        run: each pair of them plays one 1-point match through `invite` and `join`),
        everyone enters it and plays until `duration` is over."""
        from tests.e2e.bot import Bot  # imports the engine: only the players need it
        await self.log_in(port, names, load.LOGIN_CONCURRENCY)
        deadline = time.monotonic() + duration
        created: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        stats: dict[str, Any] = {"rounds": set(), "matches_finished": 0, "refusals": []}

        async def play(name: str) -> None:
            client = self.sessions[name]
            lines: asyncio.Queue[str] = asyncio.Queue()
            client.on_line = lambda line, received: lines.put_nowait(line)
            player = Bot(load.ThinkingSender(client), name, seed=hash(name))
            client.send("set boardstyle 3")
            while time.monotonic() < deadline:
                try:
                    line = await asyncio.wait_for(lines.get(), deadline - time.monotonic())
                except asyncio.TimeoutError:
                    break
                if (found := CREATED.fullmatch(line)) and not created.done():
                    created.set_result(found[1])
                elif begins := ROUND_BEGINS.fullmatch(line):
                    stats["rounds"].add(int(begins[1]))
                elif line.startswith(WON):
                    stats["matches_finished"] += 1
                elif rounds == 0 and (invited := INVITED.search(line)):
                    client.send(f"join {invited[1]}")
                await player.react(line)
            stats["refusals"] += player.refusals

        players = [asyncio.create_task(play(name)) for name in names if name in self.sessions]
        if rounds == 0:
            for inviter, invitee in zip(names[::2], names[1::2], strict=True):
                # timed as a tournament's matches are (RoundTerms)
                self.sessions[inviter].send(f"invite {invitee} 1 timer 60")
        else:
            self.sessions[names[0]].send(f"tournament create swiss rounds {rounds} length 1 "
                                         f"when {len(names)} cap {len(names)}")
            tournament_id = await asyncio.wait_for(created, load.REPLY_TIMEOUT)
            for name in names:
                self.sessions[name].send(f"tournament join {tournament_id}")
        await asyncio.gather(*players)
        return {"signed_up": len(players), "rounds": sorted(stats["rounds"]),
                "matches_finished": stats["matches_finished"], "refusals": stats["refusals"]}


def tournament_client(connection: Any, target_kind: str) -> None:
    load.client_process(connection, target_kind, TournamentWorker)


class SwissBeside:
    """The tournament's players in a client process of their own (`rounds` 0: the control,
    the same players in pairs of their own, one 1-point match each)."""

    def __init__(self, players: int, rounds: int) -> None:
        self.names = [f"t{number:03d}" for number in range(players)]
        self.rounds = rounds
        self.clients: load.Clients | None = None

    def start(self, port: int, duration: float) -> None:
        self.clients = load.Clients(1, "fibs", process_main=tournament_client)
        self.clients.start(0, "tournament", port, self.names, self.rounds, duration)

    def finish(self) -> str:
        assert self.clients is not None
        result = self.clients.result(0)
        self.clients.stop()
        kind = "a Swiss of" if self.rounds else "matches outside a tournament, of"
        return (f"{kind} {result['signed_up']}: rounds begun {result['rounds']}, "
                f"{result['matches_finished']} matches finished, {len(result['refusals'])} "
                f"refusals {result['refusals'][:3]}; its clients' CPU "
                f"{result['cpu']:.1f} s")


def main() -> None:
    parser = load.argument_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=128, help="the Swiss's entrants")
    parser.add_argument("--rounds", type=int, default=7, help="the Swiss's rounds")
    parser.add_argument("--runs", type=int, default=1, help="runs of each kind, alternating")
    parser.add_argument("--control", action="store_true",
                        help="a third kind: the same players in 1-point matches of their own")
    parser.set_defaults(sessions=2002, matches=1000, duration=90.0, warmup=45.0,
                        targets="fibs", scenarios="idle,matches")
    arguments = parser.parse_args()
    load.raise_file_limit()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}", flush=True)
    rows = []
    for run in range(1, arguments.runs + 1):
        kinds = [("E", None), ("E + Swiss", SwissBeside(arguments.players, arguments.rounds))]
        if arguments.control:
            kinds.append(("E + the same matches, no tournament",
                          SwissBeside(arguments.players, 0)))
        for label, beside in kinds:
            with tempfile.TemporaryDirectory() as directory:
                figures = load.run_target("fibs", arguments, Path(directory), beside)
            rows.append((run, label, figures))
    print(f"\n| run | | move p99 (ms) | move p99 after {arguments.warmup:.0f} s (ms) | "
          "roll p99 after warm-up (ms) |\n|---|---|---|---|---|")
    for run, label, figures in rows:
        print(f"| {run} | {label} | {figures.get('move_p99', 0):.1f} | "
              f"{figures.get('move_steady_p99', 0):.1f} | "
              f"{figures.get('roll_steady_p99', 0):.1f} |")


if __name__ == "__main__":
    main()
