"""The systemd units of docs/OPERATIONS.md, as written there: `systemd-analyze verify` finds
nothing to say, and `systemd-analyze security` rates their sandbox "OK" or better (an exposure
below 5.0). Starting the server under them needs a machine whose PID 1 is systemd: not here."""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

DOC = pathlib.Path(__file__).parents[2] / "docs" / "OPERATIONS.md"
UNIT = re.compile(r"```ini\n# /etc/systemd/system/(\S+?)(?::[^\n]*)?\n(.*?)```", re.S)
EXPOSURE = re.compile(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)")
OK_BELOW = 5.0  # systemd's "OK" ends at 4.9 (MEDIUM, EXPOSED, UNSAFE above)


def units() -> dict[str, str]:
    found = {name: text for name, text in UNIT.findall(DOC.read_text())}
    assert set(found) == {"fibs.service", "fibs@.service"}, found
    return found


@pytest.fixture
def written_units(tmp_path) -> pathlib.Path:
    if not shutil.which("systemd-analyze"):
        pytest.skip("needs systemd-analyze (Debian's systemd)")
    # The documented ExecStart is /opt/fibs's; verify wants an executable that exists.
    executable = pathlib.Path(sys.executable).parent / "fibs-server"
    for name, text in units().items():
        text = re.sub(r"^ExecStart=\S+", f"ExecStart={executable}", text, flags=re.M)
        (tmp_path / name).write_text(text)
        if name.endswith("@.service"):
            (tmp_path / name.replace("@", "@node1")).write_text(text)
    return tmp_path


def analyze(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["systemd-analyze", *arguments], capture_output=True, text=True,
                          timeout=60)


def test_the_documented_units_verify_clean_and_rate_ok_or_better(written_units):
    for name in ("fibs.service", "fibs@node1.service"):
        path = str(written_units / name)
        verified = analyze("verify", path)
        assert verified.returncode == 0 and not verified.stdout + verified.stderr, verified
        rated = analyze("security", "--offline=true", path)
        exposure = EXPOSURE.search(rated.stdout)
        assert exposure is not None, rated
        assert float(exposure.group(1)) < OK_BELOW, rated.stdout
