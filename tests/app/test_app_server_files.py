"""Files read on the server: off unless the operator names a data folder, paths cannot leave it, and a streamed
file serves every mechanism that needs only sufficient statistics (the others say why they cannot run)."""

import numpy as np
import pandas as pd

from tests.support.app import metric, plain
from ui import data, session


def _csv(folder):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 5)) * [3, 2, 1, 0.5, 0.5]
    frame = pd.DataFrame(X, columns=list("abcde")).assign(site=np.repeat(["h1", "h2", "h3"], 1000))
    frame.to_csv(folder / "survey.csv", index=False)


def test_server_files_are_off_by_default(app_test, monkeypatch):
    monkeypatch.delenv("DPPCA_DATA_DIR", raising=False)
    at = app_test(src="server:survey.csv")
    at.switch_page("pages/data.py").run()
    assert not at.exception
    assert any("off here" in plain(i.value) for i in at.info)


def test_a_streamed_file_runs_statistics_mechanisms(app_test, monkeypatch, tmp_path):
    _csv(tmp_path)
    monkeypatch.setenv("DPPCA_DATA_DIR", str(tmp_path))
    at = app_test(src="server:?", R="8.0", **{"cape_pca.sites": "3"})  # the file's three stored sites
    at.switch_page("pages/data.py").run()
    at.text_input(key="server_path").set_value("../outside.csv")
    at.button(key="server_read").click().run()
    assert not at.exception and any("the parent folder" in plain(e.value) for e in at.error)
    at.text_input(key="server_path").set_value("survey.csv")
    at.text_input(key="server_sites").set_value("site")
    at.button(key="server_read").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "rows n") == "3,000" and at.session_state["scenario"]["src"] == "server:survey.csv"
    at.switch_page("pages/explore.py").run()
    at.multiselect(key="w:mechs").set_value(["analyze_gauss", "private_oja", "cape_pca"]).run()
    assert not at.exception
    assert float(metric(at, "subspace distance")) < 1.0  # analyze_gauss and cape_pca from the statistics
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1 and "reads the individual rows" in errors[0]  # private_oja says why not


def test_a_streamed_files_input_and_reference_are_built_once_per_read_and_radius(tmp_path):
    import dppca_core as dc

    X = np.random.default_rng(3).standard_normal((400, 4))
    pd.DataFrame(X, columns=list("abcd")).to_csv(tmp_path / "t.csv", index=False)
    stats = dc.sufficient_stats(str(tmp_path / "t.csv"), data_norm=2.0)
    ds = data.Dataset(X=None, name="t.csv", note="", columns=list(stats.columns), key="streamed-test-key", stats=stats)
    first = data.prepare(ds, {"R": 2.0, "center": "none"})
    assert data.prepare(ds, {"R": 2.0, "center": "none"}) is first  # a rerun reuses it: no new eigh
    assert np.allclose(first.ref.gram, stats.gram)


def _tree(tmp_path):
    """tmp/data (served) with survey.csv and parts/p1.csv, p2.csv; tmp/outside/secret.csv whose header is SECRET;
    data/sub/link.csv -> the outside file and data/linked -> the outside folder."""
    root, outside = tmp_path / "data", tmp_path / "outside"
    (root / "parts").mkdir(parents=True)
    (root / "sub").mkdir()
    outside.mkdir()
    _csv(root)
    rng = np.random.default_rng(1)
    for name in ("p1", "p2"):
        pd.DataFrame(rng.normal(size=(500, 3)), columns=list("abc")).to_csv(root / "parts" / f"{name}.csv", index=False)
    pd.DataFrame(rng.normal(size=(500, 3)), columns=["SECRETCOLUMN", "x", "y"]).to_csv(
        outside / "secret.csv", index=False
    )
    (root / "sub" / "link.csv").symlink_to(outside / "secret.csv")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    return root


def _page_text(at) -> str:
    """Everything the page shows in text: messages, metrics, captions, markdown and widget values."""
    parts = [
        e.value for kind in ("error", "warning", "info", "caption", "markdown", "success") for e in getattr(at, kind)
    ]
    parts += [f"{m.label} {m.value}" for m in at.metric] + [str(t.value) for t in at.text_input]
    return plain(" ".join(str(p) for p in parts))


ESCAPES = [
    "sub*/../../outside/secret.csv",
    "s[u]b/../../outside/secret.csv",
    "*/../../outside/*.csv",
    "**/../../outside/secret.csv",
    "sub/*.csv",
    "sub/link.csv",
    "linked/*.csv",
    "linked",
    "%2e%2e/outside/secret.csv",
    "..\\outside\\secret.csv",
    "~/secret.csv",
    "/etc/hostname",
]


def test_no_spelling_reads_outside_the_folder_through_the_data_page(app_test, monkeypatch, tmp_path):
    """Each path of the issue (and others) is refused with a message on the page; the session keeps nothing, and
    nothing from the outside file appears. On the old server_path the first four streamed secret.csv in."""
    root = _tree(tmp_path)
    monkeypatch.setenv("DPPCA_DATA_DIR", str(root))
    at = app_test(src="server:?", R="8.0")
    at.switch_page("pages/data.py").run()
    for relative in ESCAPES:
        at.text_input(key="server_path").set_value(relative)
        at.button(key="server_read").click().run()
        assert not at.exception, relative
        errors = [plain(e.value) for e in at.error]
        assert any("Cannot compute the data source" in e for e in errors), (relative, errors)
        assert session.STREAM_KEY not in at.session_state and at.session_state["scenario"]["src"] == "server:?"
        assert "SECRETCOLUMN" not in _page_text(at), relative


def test_a_failed_read_keeps_the_previous_file_and_a_glob_inside_reads(app_test, monkeypatch, tmp_path):
    root = _tree(tmp_path)
    (root / "bad.csv").write_text("SECRETCOLUMN-HOST\n")  # one line of text, as /etc/hostname
    monkeypatch.setenv("DPPCA_DATA_DIR", str(root))
    at = app_test(src="server:?", R="8.0")
    at.switch_page("pages/data.py").run()
    at.text_input(key="server_path").set_value("parts/*.csv")
    at.button(key="server_read").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "rows n") == "1,000" and at.session_state["scenario"]["src"] == "server:parts/*.csv"
    kept = at.session_state[session.STREAM_KEY]
    at.text_input(key="server_path").set_value("bad.csv")
    at.button(key="server_read").click().run()
    assert not at.exception
    errors = [plain(e.value) for e in at.error]
    # nothing declared (the first read suggested its columns): this file's own suggestion finds no numbers
    assert len(errors) == 1 and "could not read 'bad.csv': it has no numeric columns" in errors[0]
    assert "SECRETCOLUMN" not in _page_text(at)
    assert at.session_state[session.STREAM_KEY] is kept  # the failed read left nothing behind
    assert at.session_state["scenario"]["src"] == "server:parts/*.csv" and metric(at, "rows n") == "1,000"
