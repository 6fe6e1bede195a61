"""The data-folder gate (ui/server_files.py): nothing outside the operator's folder is opened, listed or quoted,
whatever the spelling; files, folders, globs and links that stay inside still read."""

import builtins
import os

import numpy as np
import pandas as pd
import pytest

from ui import server_files as sf

SECRET = "SECRETCOLUMN"  # a header only the outside file (and the unparsable inside files) holds


def _table(path, columns=("a", "b", "c"), rows=40, seed=0):
    path.parent.mkdir(parents=True, exist_ok=True)
    X = np.random.default_rng(seed).normal(size=(rows, len(columns)))
    pd.DataFrame(X, columns=list(columns)).to_csv(path, index=False)


@pytest.fixture
def tree(tmp_path):
    """tmp/data (the served folder) with a file, a subfolder of parts and a folder 'sub'; tmp/outside with a
    table whose header is SECRET and a one-line text file."""
    root, outside = tmp_path / "data", tmp_path / "outside"
    _table(root / "survey.csv")
    _table(root / "parts" / "p1.csv", seed=1)
    _table(root / "parts" / "p2.csv", seed=2)
    _table(root / "sub" / "in.csv", seed=3)
    _table(outside / "secret.csv", columns=(SECRET, "x", "y"), seed=4)
    (outside / "hostname").write_text(f"{SECRET}-HOST\n")
    return root, outside


@pytest.fixture
def watch(monkeypatch, tree):
    """Every path opened or listed while the test runs (the gate must touch nothing outside the folder)."""
    seen = []
    real_open, real_scandir = builtins.open, os.scandir

    def spy_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)):
            seen.append(os.path.realpath(file))
        return real_open(file, *args, **kwargs)

    def spy_scandir(path="."):
        seen.append(os.path.realpath(path))
        return real_scandir(path)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(os, "scandir", spy_scandir)
    outside = str(tree[1].resolve())
    return lambda: [p for p in seen if p == outside or p.startswith(outside + os.sep)]


def _refused(root, relative):
    """The gate's ValueError for ``relative``, after checking that the read does not happen either."""
    with pytest.raises(ValueError) as err:
        found = sf.find(relative, root)
        sf.read(found, 4.0)  # only reached if the gate let the path through: the test fails above or here
    message = str(err.value)
    assert SECRET not in message and "secret.csv" not in message.replace(repr(relative), "")
    return message


# Every spelling the issue lists, then the others: each one READ tmp/outside/secret.csv through the old
# ui.data.server_path (checked on main: sufficient_stats returned the SECRET columns).
ISSUE_SPELLINGS = [
    "sub*/../../outside/secret.csv",
    "s[u]b/../../outside/secret.csv",
    "*/../../outside/*.csv",
    "**/../../outside/secret.csv",
]
OTHER_SPELLINGS = [
    "../outside/secret.csv",
    "sub/../../outside/secret.csv",
    "sub/..",
    "..",
    "./../outside/secret.csv",
    "  ../outside/secret.csv  ",
    "sub/../../outside/hostname",
    "*/../../outside/hostname",
    "%2e%2e/outside/secret.csv",
    "..%2foutside%2fsecret.csv",
    "%252e%252e/outside/secret.csv",
    "sub%2F..%2F..%2Foutside%2Fsecret.csv",
    "..\\outside\\secret.csv",
    "sub\\..\\..\\outside/secret.csv",
    "sub/..\\..\\outside\\secret.csv",
    "C:/outside/secret.csv",
    "c:secret.csv",
    "file:///etc/hostname",
    "~",
    "~/secret.csv",
    "~root/secret.csv",
    "survey.csv\x00/../../outside/secret.csv",
    "sub/\n../x.csv",
    "a/" * 300 + "secret.csv",
    "x" * 300 + ".csv",
    "sub//../outside/secret.csv",
    ".hidden.csv",
    "sub/.",
]


@pytest.mark.parametrize("relative", ISSUE_SPELLINGS + OTHER_SPELLINGS)
def test_every_spelling_that_leaves_the_folder_is_refused_and_reads_nothing_outside(tree, watch, relative):
    root, _ = tree
    _refused(root, relative)
    assert watch() == []


def test_absolute_paths_are_refused_whether_they_exist_or_not(tree, watch):
    root, outside = tree
    first = _refused(root, str(outside / "secret.csv"))
    second = _refused(root, str(outside / "no-such-file.csv"))
    assert first == second and "absolute" in first
    assert _refused(root, "/etc/hostname") == _refused(root, "//etc/hostname")
    assert watch() == []


@pytest.mark.parametrize("relative", ["sub/link.csv", "sub/*.csv", "sub", "s*/l*.csv", "sub/[l]ink.csv"])
def test_a_file_link_pointing_out_refuses_the_whole_request(tree, watch, relative):
    root, outside = tree
    (root / "sub" / "link.csv").symlink_to(outside / "secret.csv")
    message = _refused(root, relative)
    assert "outside the data folder" in message
    assert watch() == []


@pytest.mark.parametrize(
    "relative", ["linked/secret.csv", "linked/*.csv", "linked", "*/secret.csv", "l*/*", "linked/hostname"]
)
def test_a_folder_link_pointing_out_is_never_entered(tree, watch, relative):
    root, outside = tree
    (root / "linked").symlink_to(outside, target_is_directory=True)
    message = _refused(root, relative)
    assert "outside the data folder" in message
    assert watch() == []  # the outside folder is not even listed


def test_a_link_out_is_refused_the_same_whether_its_target_exists_or_not(tree, watch):
    root, outside = tree
    (root / "exists.csv").symlink_to(outside / "secret.csv")
    (root / "absent.csv").symlink_to(outside / "no-such-file.csv")
    (root / "exists_dir").symlink_to(outside, target_is_directory=True)
    (root / "absent_dir").symlink_to(outside / "no-such-folder", target_is_directory=True)
    assert _refused(root, "exists.csv").replace("exists", "X") == _refused(root, "absent.csv").replace("absent", "X")
    assert _refused(root, "exists_dir/secret.csv").replace("exists", "X") == _refused(
        root, "absent_dir/secret.csv"
    ).replace("absent", "X")
    assert watch() == []


def test_links_that_stay_inside_are_followed(tree, watch):
    root, _ = tree
    (root / "again.csv").symlink_to(root / "survey.csv")
    (root / "shards").symlink_to(root / "parts", target_is_directory=True)
    (root / "sub" / "up.csv").symlink_to("../survey.csv")  # relative link, inside
    assert sf.find("again.csv", root).paths == (str((root / "survey.csv").resolve()),)
    assert sf.find("shards/*.csv", root).names == ("parts/p1.csv", "parts/p2.csv")
    assert sf.find("sub/up.csv", root).names == ("survey.csv",)
    stats = sf.read(sf.find("shards", root), 4.0)
    assert stats.n == 80 and stats.columns == ("a", "b", "c")
    assert watch() == []


@pytest.mark.parametrize(
    "relative, names",
    [
        ("survey.csv", ("survey.csv",)),
        ("parts/*.csv", ("parts/p1.csv", "parts/p2.csv")),
        ("parts", ("parts/p1.csv", "parts/p2.csv")),
        ("p[a]rts/p?.csv", ("parts/p1.csv", "parts/p2.csv")),
        ("*/in.csv", ("sub/in.csv",)),
        ("*.csv", ("survey.csv",)),
        ("parts/", ("parts/p1.csv", "parts/p2.csv")),
    ],
)
def test_files_folders_and_globs_inside_still_read(tree, relative, names):
    root, _ = tree
    found = sf.find(relative, root)
    assert found.names == names
    assert found.total_bytes == sum((root / n).stat().st_size for n in names)
    stats = sf.read(found, 4.0)
    assert stats.n == 40 * len(names) and stats.columns == ("a", "b", "c")


def test_the_library_reads_exactly_what_the_gate_found(tree):
    """The statistics of a glob equal the library's own read of the same files (the gate changes no number)."""
    from dppca_core.data.stats import sufficient_stats

    root, _ = tree
    ours = sf.read(sf.find("parts/*.csv", root), 4.0)
    direct = sufficient_stats(str(root / "parts" / "*.csv"), data_norm=4.0)
    assert ours.n == direct.n and np.allclose(ours.gram, direct.gram, rtol=1e-12, atol=0)


def test_a_fifo_is_refused_without_being_opened(tree):
    root, _ = tree
    os.mkfifo(root / "pipe.csv")  # opening it for reading would block forever
    assert "not a regular file" in _refused(root, "pipe.csv")
    assert "not a regular file" in _refused(root, "p*.csv")


def test_a_folder_where_a_file_is_expected_is_refused(tree):
    root, _ = tree
    assert "is a folder" in _refused(root, "*")  # matches survey.csv and the folders parts and sub
    (root / "dir.csv").mkdir()
    assert "is a folder" in _refused(root, "*.csv")


def test_files_that_are_not_tables_are_not_served(tree):
    root, _ = tree
    (root / "notes.md").write_text("a,b\n1,2\n3,4\n")
    assert "not a table file" in _refused(root, "notes.md")
    assert "not a table file" in _refused(root, "no*")


def test_the_number_of_files_and_their_total_size_are_capped(tree, monkeypatch):
    root, _ = tree
    monkeypatch.setattr(sf, "MAX_FILES", 1)
    message = _refused(root, "parts/*.csv")
    assert "more than 1 files or folders (MAX_FILES" in message
    assert sf.find("survey.csv", root).names == ("survey.csv",)
    monkeypatch.setattr(sf, "MAX_FILES", 1_000)
    size = (root / "survey.csv").stat().st_size
    monkeypatch.setattr(sf, "MAX_TOTAL_BYTES", size)
    assert sf.find("survey.csv", root).total_bytes == size  # at the cap: read
    message = _refused(root, "parts/*.csv")
    assert f"more than {size / 1e9:.3g} GB (MAX_TOTAL_BYTES" in message


def test_no_match_and_the_feature_off_say_so(tree, monkeypatch):
    root, _ = tree
    assert "nothing in the data folder matches" in _refused(root, "nothere.csv")
    assert "nothing in the data folder matches" in _refused(root, "parts/*.parquet")
    monkeypatch.delenv(sf.DATA_DIR_ENV, raising=False)
    with pytest.raises(ValueError, match="off here"):
        sf.find("survey.csv")
    monkeypatch.setenv(sf.DATA_DIR_ENV, str(root))
    assert sf.find("survey.csv").names == ("survey.csv",)


@pytest.mark.parametrize(
    "content, problem",
    [
        (f"{SECRET}-HOST\n", "no numeric columns"),  # /etc/hostname: the library quotes the line as a column name
        (f"{SECRET},b\n1,2\n", "fewer than 2 usable data rows"),
        (f"{SECRET},{SECRET}\n1,2\n3,4\n", "names a column twice"),
        (f"a,b\n1,2\n{SECRET},3,4,5\n", "could not be parsed as CSV"),
        (f"\x00\x01{SECRET}", "binary"),
        ("", "it is empty"),
    ],
)
def test_errors_about_a_file_never_quote_its_content(tree, content, problem):
    root, _ = tree
    (root / "bad.csv").write_text(content)
    message = _refused(root, "bad.csv")
    assert problem in message and "bad.csv" in message


def test_a_missing_site_column_is_named_without_the_header(tree):
    root, _ = tree
    _table(root / "h.csv", columns=(SECRET, "b"))
    with pytest.raises(ValueError) as err:
        sf.read(sf.find("h.csv", root), 4.0, sites="hospital")
    assert "'hospital' is not one of its columns" in str(err.value) and SECRET not in str(err.value)


def test_files_with_different_columns_are_named_without_their_headers(tree):
    root, _ = tree
    _table(root / "mixed" / "a.csv")
    _table(root / "mixed" / "b.csv", columns=(SECRET, "b", "c"))
    with pytest.raises(ValueError) as err:
        sf.read(sf.find("mixed/*.csv", root), 4.0)
    assert "same columns" in str(err.value) and "'mixed/b.csv'" in str(err.value) and SECRET not in str(err.value)


def test_a_cancelled_read_raises_and_streamlit_control_flow_passes_through(tree):
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

    root, _ = tree
    found = sf.find("parts", root)
    with pytest.raises(ValueError, match="cancelled; nothing was kept"):
        sf.read(found, 4.0, progress=lambda rows, clipped: False)

    def click(rows, clipped):
        raise RerunException(None)

    with pytest.raises(RerunException):  # a Cancel click interrupts the script: not turned into a message
        sf.read(found, 4.0, progress=click)
