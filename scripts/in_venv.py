"""Run ``python -m MODULE`` inside a virtual environment that holds the project's pinned requirements.

Usage (from the repository root; the README's two commands)::

    python3 scripts/in_venv.py -r requirements.txt -m streamlit run app.py
    python3 scripts/in_venv.py -r requirements-dev.txt -m pytest

Which environment:

* the running interpreter's, when it already is a virtual environment (one you activated, or
  ``.venv/bin/python scripts/in_venv.py ...``);
* otherwise the project's own ``.venv/`` next to ``scripts/``, created on the first run with the interpreter
  that runs this script. This is what makes the commands work with a Debian or Ubuntu system Python, which
  refuses ``pip install`` outside a virtual environment (PEP 668, "externally managed"). The environment is
  clean (no ``--system-site-packages``): it holds exactly the pinned requirements, nothing the system happens
  to have.

The requirements files (and the files they include with ``-r`` or ``-c``) are installed only when one of
them changed since the last install into that environment: the SHA-256 of every file last installed is kept
in ``<environment>/dppca-requirements.json``, so a repeated run starts at once and a run after ``git pull``
with a changed requirements file installs again. Delete that file (or ``.venv/``) to force a reinstall.

Two commands started at once (the app in one terminal, the tests in another) take turns: a lock on the
project folder covers creating and installing, and is released before the module starts.

Anything this script cannot fix itself (no ``venv``/``ensurepip``, a failed install, a Python that is too old)
ends with one line on standard error that says what to do, and exit status 1; bad usage exits with 2.
Standard library only, POSIX only (the README's commands run under bash), and the syntax parses on old
Pythons (3.7 and later) so that they get the version message.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT_VENV = ROOT / ".venv"
STAMP_NAME = "dppca-requirements.json"
MIN_PYTHON = (3, 11)  # pyproject.toml: requires-python
USAGE = "usage: python3 scripts/in_venv.py [-r REQUIREMENTS_FILE]... -m MODULE [ARGS...]"
# a line of a requirements file that pulls in another file: -r FILE, -rFILE, --requirement[=]FILE, same for -c
_INCLUDE = re.compile(r"^\s*(?:-[rc]\s*|--(?:requirement|constraint)(?:\s*=\s*|\s+))(\S+)")


class BootstrapError(Exception):
    """Something the user must fix; the message is one line that says what to do."""


class UsageError(BootstrapError):
    """The command line is not ``[-r FILE]... -m MODULE [ARGS...]``."""


def parse_args(argv: list[str]) -> tuple[list[Path], list[str]]:
    """Split ``[-r FILE]... -m MODULE [ARGS...]`` into the requirements files and ``[MODULE, ARGS...]``."""
    requirements: list[Path] = []
    i = 0
    while i < len(argv) and argv[i] == "-r":
        if i + 1 >= len(argv):
            raise UsageError(f"-r needs a file name. {USAGE}")
        requirements.append(Path(argv[i + 1]))
        i += 2
    if i + 1 >= len(argv) or argv[i] != "-m":
        raise UsageError(USAGE)
    return requirements, argv[i + 1 :]


def check_python(version_info=sys.version_info, executable: str = sys.executable) -> None:
    """Refuse a Python older than the project supports, naming the one that was found."""
    if tuple(version_info[:2]) < MIN_PYTHON:
        found = ".".join(str(part) for part in version_info[:3])
        raise BootstrapError(
            f"DP-PCA Explorer needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer, but {executable} is {found}: "
            "install a newer Python (e.g. with pyenv or your package manager) and run the command with it."
        )


def in_virtualenv() -> bool:
    """True when this interpreter runs inside a virtual environment (``venv`` or ``virtualenv``)."""
    return sys.prefix != sys.base_prefix


def venv_python(env_dir: Path) -> Path:
    """The interpreter of the virtual environment ``env_dir`` (POSIX layout: the commands run under bash)."""
    return env_dir / "bin" / "python"


def ensure_project_venv(env_dir: Path = PROJECT_VENV) -> Path:
    """Return the interpreter of ``env_dir``, creating the environment (or recreating a broken one) first.

    The environment is created with the running interpreter and without the system's site-packages.
    Raises BootstrapError with what to install when this interpreter cannot create one (Debian and Ubuntu
    ship ``ensurepip`` in the separate ``python3-venv`` package).
    """
    python = venv_python(env_dir)
    if python.exists():  # follows the symlink: a venv whose base Python was removed counts as broken
        return python
    if env_dir.exists() and not (env_dir / "pyvenv.cfg").exists():
        raise BootstrapError(f"{env_dir} exists but is not a virtual environment: move it away and run again.")
    if importlib.util.find_spec("ensurepip") is None:
        raise BootstrapError(
            f"{sys.executable} cannot create a virtual environment (its ensurepip module is missing): install it "
            "(on Debian/Ubuntu: sudo apt install python3-venv) or activate a virtual environment, then run again."
        )
    fresh = not env_dir.exists()
    action = f"creating {display(env_dir)}" if fresh else f"recreating {display(env_dir)} (its Python is gone)"
    say(f"{action} with {sys.executable} (Python {sys.version.split()[0]})")
    done = subprocess.run(
        [sys.executable, "-m", "venv", "--clear", str(env_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if done.returncode != 0 or not python.exists():
        if fresh:
            shutil.rmtree(env_dir, ignore_errors=True)  # no half-made environment for the next run to trip on
        last = (done.stdout.strip().splitlines() or ["no output"])[-1].strip()
        raise BootstrapError(
            f"could not create {display(env_dir)} with {sys.executable} ({last}): install the "
            "venv module (on Debian/Ubuntu: sudo apt install python3-venv), then run again."
        )
    return python


def requirement_files(requirements: list[Path]) -> list[Path]:
    """The given requirements files and every file they include (``-r``/``-c``, resolved next to the includer).

    Raises BootstrapError when one of them does not exist.
    """
    seen: list[Path] = []
    pending = [path.resolve() for path in requirements]
    while pending:
        path = pending.pop(0)
        if path in seen:
            continue
        if not path.is_file():
            raise BootstrapError(f"requirements file not found: {path} (run the command from the repository root).")
        seen.append(path)
        for line in path.read_text().splitlines():
            match = _INCLUDE.match(line)
            if match:
                pending.append((path.parent / match.group(1)).resolve())
    return seen


def file_hashes(paths: list[Path]) -> dict[str, str]:
    """SHA-256 of each file's bytes, keyed by its absolute path."""
    return {str(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in paths}


def read_stamp(env_dir: Path) -> dict[str, str]:
    """The file hashes recorded at the last install into ``env_dir`` (empty when none or unreadable)."""
    try:
        stamp = json.loads((env_dir / STAMP_NAME).read_text())
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def write_stamp(env_dir: Path, hashes: dict[str, str]) -> None:
    """Record ``hashes`` as installed, keeping the other files' records (atomically: write, then rename)."""
    stamp = {**read_stamp(env_dir), **hashes}
    tmp = env_dir / (STAMP_NAME + ".tmp")
    tmp.write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, env_dir / STAMP_NAME)


def install_if_changed(python: Path, env_dir: Path, requirements: list[Path]) -> bool:
    """``pip install -r`` the requirements into ``env_dir`` unless every file is unchanged since the last install.

    Returns True when pip ran. Raises BootstrapError when pip fails (its own message is printed above ours).
    """
    hashes = file_hashes(requirement_files(requirements))
    stamp = read_stamp(env_dir)
    if all(stamp.get(path) == digest for path, digest in hashes.items()):
        return False
    names = " ".join(str(path) for path in requirements)
    say(f"installing {names} into {display(env_dir)} (new or changed requirements; the first time takes minutes)")
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-compile"]
    for path in requirements:
        command += ["-r", str(path)]
    if subprocess.run(command).returncode != 0:
        raise BootstrapError(
            f"pip could not install {names} into {display(env_dir)} (its message is above): "
            "fix that (network? disk space?) and run the command again."
        )
    compile_packages(python)
    write_stamp(env_dir, hashes)
    return True


#: byte-compiles the environment's packages on every core; files already compiled are skipped, and files that do
#: not compile (some packages ship templates or test data named .py) are left as pip leaves them, silently
COMPILE = (
    "import compileall, sysconfig\n"
    "for folder in sorted({sysconfig.get_path('purelib'), sysconfig.get_path('platlib')}):\n"
    "    compileall.compile_dir(folder, quiet=2, workers=0)\n"
)


def compile_packages(python: Path) -> None:
    """Byte-compile what pip installed, in parallel: pip compiles one file after another, about a minute of a
    first install on 2 cores, against about 35 s here (measured 2026-11-28); its output is not needed."""
    subprocess.run([str(python), "-c", COMPILE], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_module(python: Path, env_dir: Path, module_args: list[str]) -> None:
    """Replace this process with ``python -m MODULE ARGS...``, the environment activated as ``activate`` would."""
    env = dict(os.environ, VIRTUAL_ENV=str(env_dir))
    # an empty PATH entry would mean the working directory: keep only the non-empty entries
    env["PATH"] = os.pathsep.join([str(python.parent), *filter(None, env.get("PATH", "").split(os.pathsep))])
    env.pop("PYTHONHOME", None)
    sys.stdout.flush()
    os.execve(str(python), [str(python), "-m", *module_args], env)


@contextlib.contextmanager
def exclusive(directory: Path):
    """Hold an exclusive lock on ``directory`` so that two commands started at once (the app in one terminal,
    the tests in another) do not both create the environment or install into it; the second waits."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say("waiting for another in_venv command to finish creating or installing")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def display(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it (shorter messages)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def say(message: str) -> None:
    print(f"in_venv: {message}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    """Choose or create the environment, install what changed, then run the module in it."""
    try:
        requirements, module_args = parse_args(argv)
        check_python()
        requirement_files(requirements)  # a missing file is reported before anything is created
        with exclusive(ROOT):
            if in_virtualenv():
                env_dir, python = Path(sys.prefix), Path(sys.executable)
            else:
                env_dir = PROJECT_VENV
                python = ensure_project_venv(env_dir)
            install_if_changed(python, env_dir, requirements)
        run_module(python, env_dir, module_args)
    except BootstrapError as error:
        say(str(error))
        return 2 if isinstance(error, UsageError) else 1
    except KeyboardInterrupt:
        return 130
    except OSError as error:  # unreadable file, full disk, exec failure: one line, not a traceback
        say(f"{error}")
        return 1
    return 0  # not reached: run_module replaces this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
