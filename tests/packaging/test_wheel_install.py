"""Installed like any Python server: the wheel, installed in a fresh virtual environment,
migrates and serves from an empty folder, with no source tree or alembic.ini in reach."""
from __future__ import annotations

import asyncio
import importlib.util
import shutil
import signal
import sqlite3
import subprocess
import sys
import sysconfig
import venv
import zipfile
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import skip_unless_ci
from tests.e2e.client import FibsClient
from tests.e2e.conftest import DATE_LINE, answer_guest_dialogue
from tests.store.test_migrations import head_revision
from tests.waiting import DEADLINE

SOURCE = Path(__file__).resolve().parents[2]
MIGRATIONS = Path("fibs_server/store/migrations")
WEB_PAGE = Path("fibs_server/web/static")
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built as `pip wheel .` builds it."""
    if importlib.util.find_spec("setuptools.command.bdist_wheel") is None:
        skip_unless_ci("building the wheel needs the test extras' setuptools>=70.1 "
                       "(pip install -e '.[test]')")
    work = tmp_path_factory.mktemp("wheel")
    # Build from a copy of what goes into the wheel: setuptools builds in the source folder and
    # keeps its build/ there, where files since deleted would still reach the wheel.
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(SOURCE / name, source)
    shutil.copytree(SOURCE / "fibs_server", source / "fibs_server",
                    ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([*PIP, "wheel", "--no-deps", "--no-build-isolation", "-w", work / "wheels",
                    source], check=True)
    [built] = (work / "wheels").glob("fibs_server-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The bin folder of a fresh virtual environment with the wheel installed."""
    environment = tmp_path_factory.mktemp("install") / "venv"
    venv.create(environment, with_pip=False)  # this interpreter's pip installs into it
    python = environment / "bin" / "python"
    # The test venv's packages satisfy the wheel's requirements, so pip downloads nothing: a
    # .pth line puts its site-packages after the new one's. Not being a site folder, its .pth
    # files (the editable fibs_server's among them) are not read.
    [site_packages] = (environment / "lib").glob("python*/site-packages")
    (site_packages / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([*PIP, "--python", python, "install", wheel], check=True)
    imported = subprocess.run([python, "-c", "import fibs_server; print(fibs_server.__file__)"],
                              cwd=environment, check=True, capture_output=True,
                              text=True).stdout
    assert Path(imported).is_relative_to(site_packages), imported
    return environment / "bin"


@pytest.mark.parametrize("folder", [MIGRATIONS, WEB_PAGE], ids=["migrations", "web page"])
def test_the_wheel_holds_every_file_of(wheel, folder):
    in_source = {path.relative_to(SOURCE).as_posix()
                 for path in (SOURCE / folder).rglob("*")
                 if path.is_file() and "__pycache__" not in path.parts}
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {name for name in archive.namelist() if name.startswith(f"{folder}/")}
    assert in_source and in_wheel == in_source


def empty_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "empty"
    folder.mkdir()
    return folder


async def test_the_installed_server_migrates_registers_and_stops_on_sigterm(installed, tmp_path):
    folder = empty_folder(tmp_path)
    server = await asyncio.create_subprocess_exec(
        installed / "fibs-server", "--host", "127.0.0.1", "--port", "0", "--http-port", "0",
        "--database-url", "sqlite:///fibs.db", "--bcrypt-rounds", "4", "--log-level", "WARNING",
        cwd=folder, stdout=asyncio.subprocess.PIPE)
    try:
        line = (await asyncio.wait_for(server.stdout.readline(), DEADLINE)).decode()
        assert line.startswith("fibs_server listening on 127.0.0.1:"), line
        client = await FibsClient("newcomer").connect(int(line.rpartition(":")[2]))
        await client.skip_until("  One account per person only!")
        await client.skip_until(DATE_LINE)
        await client.expect_prompt("login: ")
        await answer_guest_dialogue(client, "newcomer", "secret")
        await client.expect_lines("", "You are registered.")
        await client.close()
        server.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(server.wait(), DEADLINE) == 0
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    assert (folder / "fibs.db").exists()  # the relative URL: the folder it was started in


def test_db_upgrade_takes_its_options_after_the_sub_command(installed, tmp_path):
    folder = empty_folder(tmp_path)
    database = tmp_path / "upgraded.db"
    subprocess.run([installed / "fibs-server", "db", "upgrade", "--database-url",
                    f"sqlite:///{database}", "--log-level", "WARNING"], cwd=folder, check=True)
    with closing(sqlite3.connect(database)) as connection:
        [(revision,)] = connection.execute("SELECT version_num FROM alembic_version")
    assert revision == head_revision(f"sqlite:///{database}")
    assert list(folder.iterdir()) == []  # not the default sqlite:///fibs.db
