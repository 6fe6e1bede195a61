"""Files read on the server: off unless the operator names a data folder, paths cannot leave it, and a streamed
file serves every mechanism that needs only sufficient statistics (the others say why they cannot run)."""
import numpy as np
import pandas as pd

from tests.test_app_pages import metric, plain
from ui import data


def _csv(folder):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 5)) * [3, 2, 1, 0.5, 0.5]
    frame = pd.DataFrame(X, columns=list("abcde")).assign(site=np.repeat(["h1", "h2", "h3"], 1000))
    frame.to_csv(folder / "survey.csv", index=False)


def test_server_files_are_off_by_default(app_test, monkeypatch):
    monkeypatch.delenv(data.DATA_DIR_ENV, raising=False)
    at = app_test(src="server:survey.csv")
    at.switch_page("pages/data.py").run()
    assert not at.exception
    assert any("off here" in plain(i.value) for i in at.info)


def test_a_streamed_file_runs_statistics_mechanisms(app_test, monkeypatch, tmp_path):
    _csv(tmp_path)
    monkeypatch.setenv(data.DATA_DIR_ENV, str(tmp_path))
    at = app_test(src="server:?", R="8.0", **{"cape_pca.sites": "3"})  # the file's three stored sites
    at.switch_page("pages/data.py").run()
    at.text_input(key="server_path").set_value("../outside.csv")
    at.button(key="server_read").click().run()
    assert not at.exception and any("outside the data folder" in plain(e.value) for e in at.error)
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
    ds = data.Dataset(X=None, name="t.csv", note="", columns=list(stats.columns), key="streamed-test-key",
                      stats=stats)
    first = data.prepare(ds, {"R": 2.0, "center": "none"})
    assert data.prepare(ds, {"R": 2.0, "center": "none"}) is first  # a rerun reuses it: no new eigh
    assert np.allclose(first.ref.gram, stats.gram)
