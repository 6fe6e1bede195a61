"""``dppca-explorer``: serve the DP-PCA Explorer dashboard from any folder, through Streamlit's own launcher.

Installed by ``pip install "dppca-explorer[app]"`` (or ``pip install "<wheel>[app]"``). It runs the app's ``app.py``
with ``streamlit run`` (:func:`streamlit.web.cli.main`: Streamlit's server, its flags and its messages), so every
Streamlit option still works (``dppca-explorer --server.baseUrlPath dppca``). The app's own Streamlit settings
(``.streamlit/config.toml`` beside ``app.py``, shipped with it) apply wherever the command is started: Streamlit reads
that file after the user's and the current folder's, and before ``STREAMLIT_*`` variables and flags.

Where the app is: in an installed wheel, ``dppca_explorer/app/`` (app.py, pages/, ui/ and the docs files the pages
read; ``ui`` is importable only from there, since Streamlit puts the script's folder first on ``sys.path``); in a
clone or an editable install, the repository's top folder itself.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from dppca_core.version import __version__

#: the environment variables the app reads, set from the options below (an option given wins over the variable)
DATA_DIR_ENV = "DPPCA_DATA_DIR"
PUBLIC_URL_ENV = "DPPCA_PUBLIC_URL"
LEDGER_ENV = "DPPCA_LEDGER"

DESCRIPTION = """Serve the DP-PCA Explorer dashboard (differentially private PCA, live) with its sample data.
Open the address it prints in a browser. Stop it with Ctrl+C."""
EPILOG = """Any other Streamlit option passes through, e.g. --server.baseUrlPath dppca or --server.maxUploadSize 20
(see `streamlit run --help`). Examples:
  dppca-explorer                                   # http://localhost:8501, every network interface
  dppca-explorer --port 8600 --address 127.0.0.1   # this machine only
  dppca-explorer --data-dir /srv/tables --public-url https://dppca.example.org"""


def app_folder() -> Path:
    """The folder holding the dashboard's ``app.py``: the wheel's copy, else the repository (a clone)."""
    here = Path(__file__).resolve().parent
    for folder in (here / "app", here.parent):
        if (folder / "app.py").is_file() and (folder / "ui" / "__init__.py").is_file():
            return folder
    raise SystemExit(
        f"dppca-explorer: the dashboard's files are missing next to {here}: reinstall the package "
        '(pip install --force-reinstall "dppca-explorer[app]").'
    )


def parser() -> argparse.ArgumentParser:
    """The command's options (``--help`` prints them)."""
    p = argparse.ArgumentParser(
        prog="dppca-explorer",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--port", type=int, help="the port to serve on (default 8501, or the next free one)")
    p.add_argument(
        "--address",
        help="the address to listen on, e.g. 127.0.0.1 for this machine only (default: every interface)",
    )
    p.add_argument(
        "--data-dir",
        metavar="FOLDER",
        help=f"a folder of tables visitors may open on the server (${DATA_DIR_ENV}; default: none, uploads only)",
    )
    p.add_argument(
        "--public-url",
        metavar="URL",
        help=f"the app's public address, for the links in downloaded records (${PUBLIC_URL_ENV}; default: relative)",
    )
    p.add_argument(
        "--ledger",
        metavar="FILE",
        help=f"the budget book's SQLite file (${LEDGER_ENV}; default: in the data folder, else the user's state folder)",
    )
    p.add_argument("--version", action="version", version=f"dppca-explorer {__version__}")
    return p


def streamlit_args(options: argparse.Namespace, passed_on: list[str]) -> list[str]:
    """``streamlit run`` arguments for ``options``: the app's script, then the port and address, then any Streamlit
    option given as it is (Streamlit checks those and says what is wrong)."""
    args = ["run", str(app_folder() / "app.py")]
    if options.port is not None:
        args += ["--server.port", str(options.port)]
    if options.address is not None:
        args += ["--server.address", options.address]
    return args + passed_on


def environment(options: argparse.Namespace, env=os.environ) -> dict:
    """The app's variables from ``options`` (paths made absolute: the app does not run from this folder); raises
    SystemExit in words when the data folder is not a folder."""
    out = {}
    if options.data_dir is not None:
        folder = Path(options.data_dir).expanduser().resolve()
        if not folder.is_dir():
            raise SystemExit(f"dppca-explorer: --data-dir {options.data_dir}: no such folder.")
        out[DATA_DIR_ENV] = str(folder)
    if options.public_url is not None:
        out[PUBLIC_URL_ENV] = options.public_url.strip()
    if options.ledger is not None:
        out[LEDGER_ENV] = str(Path(options.ledger).expanduser().resolve())
    return out


def main(argv: list[str] | None = None) -> None:
    """Run the command: parse ``argv`` (default: the command line), set the app's variables, start Streamlit."""
    p = parser()
    options, passed_on = p.parse_known_args(argv)
    stray = [a for a in passed_on if a.startswith("-") and "." not in a.split("=", 1)[0]]
    if stray:
        p.error(f"unknown option {stray[0]} (Streamlit's own options have a dot: --server.port)")
    os.environ.update(environment(options))
    from streamlit.web import cli as streamlit_cli  # the [app] extra: imported only to serve

    streamlit_cli.main(args=streamlit_args(options, passed_on), prog_name="dppca-explorer")


if __name__ == "__main__":
    main()
