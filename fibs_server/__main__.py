"""`fibs-server` / `python -m fibs_server`: run the server, or `db upgrade` to migrate only."""
from __future__ import annotations

import argparse
import asyncio
import logging
import os

from fibs_server.app import ServerConfig, serve
from fibs_server.net.limits import add_limit_arguments, limits_from_arguments
from fibs_server.store import DEFAULT_DATABASE_URL, upgrade_database


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="fibs-server", description="A FIBS-compatible "
                                     "backgammon server. Options default to FIBS_* variables.")
    parser.add_argument("--host", default=env("FIBS_HOST", "0.0.0.0"))
    parser.add_argument("--port", type=int, default=int(env("FIBS_PORT", "4321")))
    parser.add_argument("--database-url", default=env("FIBS_DATABASE_URL", DEFAULT_DATABASE_URL),
                        help="sqlite:///fibs.db (default) or postgresql://user@host:port/db")
    parser.add_argument("--bcrypt-rounds", type=int, default=int(env("FIBS_BCRYPT_ROUNDS", "12")))
    parser.add_argument("--idle-timeout", type=float,
                        default=float(env("FIBS_IDLE_TIMEOUT", "3600")),
                        help="seconds without input before a connection is closed")
    parser.add_argument("--log-level", default=env("FIBS_LOG_LEVEL", "INFO"))
    add_limit_arguments(parser)
    commands = parser.add_subparsers(dest="command")
    database = commands.add_parser("db", help="database maintenance")
    database.add_argument("action", choices=["upgrade"])
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    arguments = parse_arguments(argv)
    logging.basicConfig(level=arguments.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # aiosqlite's debug lines carry query parameters: password hashes among them.
    logging.getLogger("aiosqlite").setLevel(logging.INFO)
    if arguments.command == "db":
        upgrade_database(arguments.database_url)
        return
    asyncio.run(serve(ServerConfig(
        host=arguments.host, port=arguments.port, database_url=arguments.database_url,
        bcrypt_rounds=arguments.bcrypt_rounds, idle_timeout=arguments.idle_timeout,
        **limits_from_arguments(arguments))))


if __name__ == "__main__":
    main()
