"""End-to-end (issue 35 item 1): an analyst's messy table, uploaded with the defaults, opens on the Data page without
an error box (every measurement kept, each bad cell replaced), the link records the columns, a flagged year column
leaves with one click, and Explore runs."""
import json

import pytest

from tests.e2e.helpers import assert_no_error, go_to, query, settle, upload_on_data_page, wait_metrics
from tests.messy import MEASUREMENTS, messy_csv

pytestmark = pytest.mark.e2e


def test_a_messy_upload_opens_keeps_its_measurements_and_reaches_explore(server, browser, tmp_path):
    csv = tmp_path / "penguins.csv"
    csv.write_bytes(messy_csv())
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    upload_on_data_page(page, server, csv, "R=6000.0&mechs=analyze_gauss&reps=2")
    assert_no_error(page, "data after a messy upload")
    assert json.loads(query(page)["cols"]) == ["id", *MEASUREMENTS, "year", "station"]
    assert query(page)["label"] == "species"
    body = page.inner_text("body")
    assert "on_bad" not in body and "drop_column" not in body
    chips = page.locator('[data-testid="stMultiSelect"]').first
    assert chips.evaluate("e => [...e.querySelectorAll('*')].every(x => x.scrollWidth <= x.clientWidth + 1)"), \
        "the declared columns do not fit their box"
    page.get_by_role("button", name="Leave out year").click()
    page.wait_for_function("() => !new URLSearchParams(location.search).get('cols').includes('year')",
                           timeout=60_000)
    settle(page)
    assert json.loads(query(page)["cols"]) == ["id", *MEASUREMENTS, "station"]
    assert_no_error(page, "data after leaving the year out")
    go_to(page, "Explore")
    wait_metrics(page)
    assert_no_error(page, "explore after a messy upload")
    assert json.loads(query(page)["cols"]) == ["id", *MEASUREMENTS, "station"]
    page.close()
