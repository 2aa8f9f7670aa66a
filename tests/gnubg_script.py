"""Running one of the tests' Python files inside GNU Backgammon (`gnubg -t -q -r -p FILE`):
the oracles that have gnubg read boards, list legal plays or play itself. The files to read
and write are named in environment variables."""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

GNUBG = Path("/usr/games/gnubg")


def run_in_gnubg(script: str, *, inputs: dict[str, str], values: dict[str, str],
                 output_variable: str, timeout: float) -> str:
    """Run `script` in gnubg. Each of `inputs` (variable -> text) is written to a file whose
    path the variable names; `values` are plain variables; the script writes its answer to the
    file `output_variable` names, which is returned."""
    with tempfile.TemporaryDirectory() as directory:
        environment = dict(os.environ, **values)
        for index, (variable, text) in enumerate(inputs.items()):
            path = Path(directory) / f"input{index}.txt"
            path.write_text(text)
            environment[variable] = str(path)
        output = Path(directory) / "output.txt"
        environment[output_variable] = str(output)
        completed = subprocess.run([str(GNUBG), "-t", "-q", "-r", "-p", script],
                                   stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                   env=environment, timeout=timeout)
        if not output.exists():
            raise RuntimeError(f"gnubg failed (exit {completed.returncode}): "
                               f"{completed.stdout[-2000:]}{completed.stderr[-2000:]}")
        return output.read_text()


def run_gnubg_commands(commands: str, *, timeout: float) -> str:
    """What gnubg prints running `commands` (gnubg's own command language, `gnubg -c`)."""
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "commands.gnubg"
        script.write_text(commands)
        return subprocess.run([str(GNUBG), "-t", "-q", "-r", "-c", str(script)],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout, check=True).stdout
