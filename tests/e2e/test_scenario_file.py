"""End-to-end (issue 38): the scenario file downloaded from the sidebar of a page, dropped on Home in a fresh session,
gives the same address and the same page as the link it came from."""

from pathlib import Path

import pytest

from dppca_core.scenario import Scenario
from tests.e2e.helpers import assert_no_error, download, open_page, query, settle

pytestmark = pytest.mark.e2e

LINK = "mechs=analyze_gauss,private_power&eps=0.5&k=3&reps=2&n=400&d=8&center=private&bmean=0.2&seed=3"


def test_a_downloaded_scenario_file_dropped_on_home_opens_the_same_page(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    open_page(page, server, "explore", LINK)
    assert_no_error(page, "explore from the link")
    wanted = query(page)
    shown = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    path = Path(download(page, "download_scenario_file", tmp_path))
    assert path.name == "dppca_scenario.toml"
    assert Scenario.from_file(path).to_query() == wanted

    fresh = browser.new_page(viewport={"width": 1280, "height": 900})
    open_page(fresh, server, "")
    fresh.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    fresh.get_by_text("Scenario opened").wait_for(timeout=60_000)
    settle(fresh)
    assert_no_error(fresh, "home after opening the scenario file")
    assert query(fresh) == wanted
    fresh.get_by_role("link", name="Explore").first.click()  # the same session, on to the page the link opened
    fresh.wait_for_selector('[data-testid="stMetricValue"]', timeout=240_000)
    settle(fresh, timeout=240_000)
    assert_no_error(fresh, "explore after opening the scenario file")
    assert query(fresh) == wanted
    assert fresh.locator('[data-testid="stMetricValue"]').all_inner_texts() == shown
