"""`fibs-gnubg-bot` / `python -m fibs_server.gnubg_bot`: the command line (docs/GNUBG-BOT.md)."""
from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
from pathlib import Path

from fibs_server.gnubg_bot.client import Challenge, ConnectionClosed, LoginFailed, run_bot
from fibs_server.gnubg_bot.clip_lines import MatchLengths
from fibs_server.gnubg_bot.external import GNUBG, GnubgEngine, GnubgError

log = logging.getLogger("fibs_server.gnubg_bot")


def match_lengths(text: str) -> MatchLengths:
    try:
        return MatchLengths.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="fibs-gnubg-bot",
        description="A FIBS bot: logs in to a FIBS-compatible server over CLIP, accepts "
                    "invitations and lets GNU Backgammon (gnubg -t, external interface) make "
                    "every decision.")
    parser.add_argument("--host", default=env("FIBS_BOT_HOST", "localhost"))
    parser.add_argument("--port", type=int, default=int(env("FIBS_BOT_PORT", "4321")))
    parser.add_argument("--name", default=env("FIBS_BOT_NAME"), help="the bot's account")
    parser.add_argument("--password", default=env("FIBS_BOT_PASSWORD"),
                        help="or FIBS_BOT_PASSWORD (a command line shows in `ps`)")
    parser.add_argument("--register", action="store_true",
                        help="register the account first as a guest (a taken name is "
                             "assumed to be the bot's own)")
    parser.add_argument("--invite", nargs=2, metavar=("NAME", "LENGTH"),
                        help="invite NAME to a LENGTH (number or 'unlimited') match once "
                             "NAME is online and ready")
    parser.add_argument("--lengths", type=match_lengths, default=MatchLengths.parse("any"),
                        help="match lengths to accept: 'any' (default), or e.g. "
                             "'1,3,5-7,unlimited'")
    parser.add_argument("--plies", type=int, default=0,
                        help="gnubg's search depth for moves and cube decisions (default 0; "
                             "2 is stronger and slower)")
    parser.add_argument("--no-resign", dest="resign_hopeless", action="store_false",
                        help="never offer to resign (by default the bot resigns a game gnubg "
                             "sees as lost for certain)")
    parser.add_argument("--gnubg", type=Path, default=GNUBG, help=f"default {GNUBG}")
    parser.add_argument("--client-name", default="fibs-gnubg-bot",
                        help="the client name the CLIP login gives (one word)")
    parser.add_argument("--transcript", type=Path,
                        help="append every line in (`< `) and out (`> `) to this file")
    parser.add_argument("--log-level", default=env("FIBS_BOT_LOG_LEVEL", "INFO"))
    arguments = parser.parse_args(argv)
    if not arguments.name or not arguments.password:
        parser.error("--name and --password (or FIBS_BOT_NAME, FIBS_BOT_PASSWORD) are needed")
    if arguments.invite and not (arguments.invite[1].isdigit()
                                 or arguments.invite[1] == "unlimited"):
        parser.error("--invite NAME LENGTH: LENGTH is a number or 'unlimited'")
    return arguments


async def run_until_stopped(arguments: argparse.Namespace, engine: GnubgEngine) -> None:
    """The bot until SIGTERM or SIGINT, which end it quietly."""
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    for stop_signal in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(stop_signal, task.cancel)
    try:
        await run_bot(arguments.host, arguments.port, arguments.name, arguments.password,
                      engine, client_name=arguments.client_name,
                      register_first=arguments.register, lengths=arguments.lengths,
                      challenge=Challenge(*arguments.invite) if arguments.invite else None,
                      resign_hopeless=arguments.resign_hopeless,
                      transcript_path=arguments.transcript)
    except asyncio.CancelledError:
        log.info("%s stopped", arguments.name)


def main(argv: list[str] | None = None) -> int:
    """Exit status 0 when stopped by a signal, 1 when the login, the server or gnubg failed."""
    arguments = parse_arguments(argv)
    logging.basicConfig(level=arguments.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(message)s")
    # Until the event loop takes the signals over: a SIGTERM still stops gnubg on its way out.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        engine = GnubgEngine(arguments.gnubg, arguments.plies)
    except GnubgError as error:
        log.error("%s", error)
        return 1
    try:
        asyncio.run(run_until_stopped(arguments, engine))
    except (GnubgError, LoginFailed, ConnectionClosed, OSError) as error:
        log.error("%s: %s", arguments.name, error)
        return 1
    except KeyboardInterrupt:
        log.info("%s stopped", arguments.name)
    finally:
        engine.stop()
    return 0
