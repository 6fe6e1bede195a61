"""scripts/in_venv.py, the README commands' bootstrap: which environment it picks, when it installs, what it says.

The externally managed Python (a stock Debian or Ubuntu ``/usr/bin/python3``, PEP 668) is simulated portably: a
copy of the base interpreter's binary in a temporary prefix whose ``lib/pythonX.Y`` links to the real standard
library and holds an ``EXTERNALLY-MANAGED`` marker. Python finds its prefix from the binary's location, so the copy
is a real, non-venv interpreter on which pip refuses to install. The script is run for real (it creates a venv
with ensurepip and runs pip), in a temporary project whose requirements ask only for pip, which a fresh venv
already has: no network; two venvs are made (about 20 s on a quiet 2-core machine, minutes under heavy load).
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "in_venv.py"
# prints where it runs: the interpreter's prefix, the activation variables, and its arguments
PROBE = (
    'import os, sys\nprint(sys.prefix)\nprint(os.environ.get("VIRTUAL_ENV"))\n'
    'print(os.environ["PATH"].split(os.pathsep)[0])\nprint(sys.argv[1:])\n'
)


def _load_script():
    spec = importlib.util.spec_from_file_location("in_venv", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


in_venv = _load_script()


def fake_base_python(prefix: Path, externally_managed: bool = True, ensurepip: bool = True) -> Path:
    """A non-venv interpreter installed at ``prefix``: the base binary copied, its stdlib linked entry by entry."""
    base_exe = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    stdlib = Path(sysconfig.get_path("stdlib"))
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    if os.name != "posix" or stdlib.name != version or stdlib.parent.name != "lib":
        pytest.skip(f"needs a POSIX prefix/lib/{version} layout, not {stdlib}")
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib" / version).mkdir(parents=True)
    python = prefix / "bin" / "python3"
    shutil.copy2(base_exe, python)
    for entry in stdlib.iterdir():  # the base's packages stay out: a clean base, like a fresh system
        if entry.name not in ("site-packages", "dist-packages") and (ensurepip or entry.name != "ensurepip"):
            (prefix / "lib" / version / entry.name).symlink_to(entry)
    for library in stdlib.parent.glob("libpython*"):  # a shared libpython found next to the binary ($ORIGIN)
        (prefix / "lib" / library.name).symlink_to(library)
    if externally_managed:
        (prefix / "lib" / version / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError=simulated\n")
    return python


def make_project(path: Path) -> Path:
    """A project with the bootstrap in scripts/, requirements that include a second file, and a probe module."""
    (path / "scripts").mkdir(parents=True)
    shutil.copy2(SCRIPT, path / "scripts" / "in_venv.py")
    (path / "requirements.txt").write_text("# runtime\n-r requirements-inner.txt\n")
    (path / "requirements-inner.txt").write_text("pip\n")
    (path / "probe.py").write_text(PROBE)
    return path


def start(python: Path, project: Path, *args: str) -> subprocess.Popen:
    """``python scripts/in_venv.py ARGS`` in ``project``, outside any activated environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH")}
    return subprocess.Popen(
        [str(python), "scripts/in_venv.py", *args],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen) -> subprocess.CompletedProcess:
    out, err = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def run(python: Path, project: Path, *args: str) -> subprocess.CompletedProcess:
    return finish(start(python, project, *args))


def probe_lines(result: subprocess.CompletedProcess) -> list[str]:
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.fixture(scope="module")
def managed(tmp_path_factory):
    """An externally managed base Python and a project on which the first run has been made with it: two
    commands started at once, like the app in one terminal and the tests in another."""
    tmp = tmp_path_factory.mktemp("bootstrap")
    python = fake_base_python(tmp / "prefix")
    project = make_project(tmp / "project")
    both = [
        start(python, project, "-r", "requirements.txt", "-m", "probe", "a b", "c"),
        start(python, project, "-r", "requirements.txt", "-m", "probe"),
    ]
    return python, project, [finish(process) for process in both]


def test_the_simulated_python_is_externally_managed(managed):
    python = managed[0]
    check = (
        "import os, sys, sysconfig; print(sys.prefix == sys.base_prefix, "
        "os.path.isfile(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))"
    )
    out = subprocess.run([str(python), "-c", check], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True"]  # not a venv, marker in its stdlib: PEP 668, pip refuses to install here


def test_externally_managed_python_gets_a_project_venv_and_runs_the_module_in_it(managed):
    python, project, first = managed
    venv = project / ".venv"
    prefix, virtual_env, path_head, argv = probe_lines(first[0])
    assert Path(prefix) == venv and Path(virtual_env) == venv and Path(path_head) == venv / "bin"
    assert argv == "['a b', 'c']"  # arguments after -m MODULE are passed through untouched
    assert probe_lines(first[1])[0] == str(venv)
    # the two commands took turns (a lock): the environment was created once and the requirements installed once
    errors = first[0].stderr + first[1].stderr
    assert errors.count("creating .venv") == 1 and errors.count("installing requirements.txt") == 1, errors
    assert (venv / "pyvenv.cfg").read_text().count("include-system-site-packages = false") == 1
    stamp = in_venv.read_stamp(venv)  # both files, the included one too, are recorded as installed
    assert set(stamp) == {str(project / "requirements.txt"), str(project / "requirements-inner.txt")}


def test_a_repeated_run_installs_nothing_and_a_changed_or_reverted_requirement_installs_again(managed):
    python, project, _ = managed
    again = run(python, project, "-r", "requirements.txt", "-m", "probe")
    assert probe_lines(again)[0] == str(project / ".venv") and again.stderr == ""
    inner = project / "requirements-inner.txt"
    old = inner.read_text()
    inner.write_text(old + "# pulled a new pin\n")  # an included file changed, as after a git pull
    changed = run(python, project, "-r", "requirements.txt", "-m", "probe")
    assert "installing requirements.txt" in changed.stderr and "creating" not in changed.stderr
    inner.write_text(old)  # back to an older checkout: what is installed is the newer file, so install again
    reverted = run(python, project, "-r", "requirements.txt", "-m", "probe")
    assert "installing requirements.txt" in reverted.stderr
    assert probe_lines(reverted)[0] == str(project / ".venv")


def test_an_active_virtual_environment_is_used_as_it_is(managed, tmp_path):
    _, project, _ = managed
    other = make_project(tmp_path / "other")
    active = project / ".venv" / "bin" / "python"  # a venv of the user's own, already activated
    result = run(active, other, "-r", "requirements.txt", "-m", "probe")
    assert probe_lines(result)[0] == str(project / ".venv")
    assert not (other / ".venv").exists() and "creating" not in result.stderr
    assert str(other / "requirements.txt") in in_venv.read_stamp(project / ".venv")


def probe_wheel(folder: Path) -> Path:
    """A wheel of one pure-Python module (``compile_probe``), made here: pip installs it without a network."""
    import base64
    import hashlib
    import zipfile

    files = {
        "compile_probe/__init__.py": "VALUE = 1\n",
        "compile_probe-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: compile-probe\nVersion: 1.0\n",
        "compile_probe-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [
        f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()},"
        f"{len(text.encode())}"
        for name, text in files.items()
    ]
    files["compile_probe-1.0.dist-info/RECORD"] = "\n".join([*record, "compile_probe-1.0.dist-info/RECORD,,"]) + "\n"
    wheel = folder / "compile_probe-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def test_what_pip_installs_is_byte_compiled_afterwards(managed, tmp_path):
    """pip installs without compiling, one file after another; the script then compiles the environment on every
    core: a package just installed has its bytecode (this machine's Python writes none on import)."""
    _, project, _ = managed
    other = make_project(tmp_path / "other")
    (other / "requirements-inner.txt").write_text(f"{probe_wheel(tmp_path)}\n")
    active = project / ".venv" / "bin" / "python"
    result = run(active, other, "-r", "requirements.txt", "-m", "probe")
    assert result.returncode == 0 and "installing requirements.txt" in result.stderr, result.stderr
    where = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(subprocess.run([str(active), "-c", where], capture_output=True, text=True, check=True).stdout.strip())
    assert (site / "compile_probe" / "__init__.py").is_file()
    assert list((site / "compile_probe" / "__pycache__").glob("__init__.*.pyc")), "installed, not compiled"


def test_a_python_without_ensurepip_says_in_one_line_what_to_install(tmp_path):
    python = fake_base_python(tmp_path / "prefix", ensurepip=False)  # Debian without python3-venv
    project = make_project(tmp_path / "project")
    result = run(python, project, "-r", "requirements.txt", "-m", "probe")
    assert result.returncode == 1 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "sudo apt install python3-venv" in result.stderr
    assert not (project / ".venv").exists()


def test_a_venv_whose_python_is_gone_is_recreated(tmp_path):
    python = fake_base_python(tmp_path / "prefix")
    project = make_project(tmp_path / "project")
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /nonexistent\n")
    (project / ".venv" / "bin" / "python").symlink_to("/nonexistent/python3")  # its base Python was removed
    result = run(python, project, "-r", "requirements.txt", "-m", "probe")
    assert "recreating .venv" in result.stderr and probe_lines(result)[0] == str(project / ".venv")


@pytest.mark.parametrize(
    "args, code, says",
    [
        (["-r", "requirements.txt"], 2, "usage: python3 scripts/in_venv.py"),
        (["-r"], 2, "-r needs a file name"),
        (["-r", "missing.txt", "-m", "probe"], 1, "requirements file not found"),
    ],
)
def test_bad_command_lines_get_one_line_and_create_nothing(tmp_path, args, code, says):
    project = make_project(tmp_path / "project")
    result = run(Path(sys.executable), project, *args)
    assert result.returncode == code and len(result.stderr.splitlines()) == 1 and says in result.stderr
    assert "Traceback" not in result.stderr and not (project / ".venv").exists()


def test_a_python_older_than_the_project_supports_is_named():
    with pytest.raises(in_venv.BootstrapError, match=r"needs Python 3\.11 or newer, but /usr/bin/python3 is 3\.10\.12"):
        in_venv.check_python((3, 10, 12, "final", 0), "/usr/bin/python3")
    in_venv.check_python((3, 11, 0, "final", 0), "python3")  # the oldest supported passes


def test_the_script_parses_on_old_pythons_so_that_they_get_the_version_message():
    import ast

    ast.parse(SCRIPT.read_text(), feature_version=(3, 7))  # e.g. no match statements, no unparenthesised walrus


def test_includes_are_followed_in_every_spelling_pip_accepts(tmp_path):
    names = ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"]
    (tmp_path / "top.txt").write_text("-r a.txt\n--requirement=b.txt\n-cc.txt\n--constraint d.txt\nnumpy==2.0\n")
    for name in names:
        (tmp_path / name).write_text("-r top.txt\n" if name == "a.txt" else "")  # a cycle is followed once
    (tmp_path / "sub").mkdir()
    (tmp_path / "d.txt").write_text("-r sub/e.txt\n")
    (tmp_path / "sub" / "e.txt").write_text("-r ../e.txt\n")  # resolved next to the file that includes it
    found = in_venv.requirement_files([tmp_path / "top.txt"])
    assert [path.relative_to(tmp_path).as_posix() for path in found] == [
        "top.txt",
        "a.txt",
        "b.txt",
        "c.txt",
        "d.txt",
        "sub/e.txt",
        "e.txt",
    ]
