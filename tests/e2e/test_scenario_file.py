"""End-to-end (issue 38): the scenario file downloaded from the sidebar of a page, dropped on Home in a fresh session,
gives the same address and the same page as the link it came from."""

from pathlib import Path

from dppca_core.scenario import Scenario
from tests.e2e.helpers import assert_no_error, download, eventually, open_page, query, settle


LINK = "mechs=analyze_gauss,private_power&eps=0.5&k=3&reps=2&n=400&d=8&center=private&bmean=0.2&seed=3"
NUMBERS = '[data-testid="stMetricValue"]'


def drawn_numbers(page) -> list[str]:
    """The page's numbers once every mechanism's block is drawn: the same on two reads half a second apart, after
    the run has ended (on a busy machine a page can report the end of a run while its blocks are still arriving)."""

    def check():
        settle(page, timeout=240_000)
        first = page.locator(NUMBERS).all_inner_texts()
        page.wait_for_timeout(500)
        assert first and page.locator(NUMBERS).all_inner_texts() == first
        assert page.locator("h4").count() >= 2, "both mechanisms' blocks"  # analyze_gauss and private_power
        return first

    return eventually(page, check, timeout=120)


def test_a_downloaded_scenario_file_dropped_on_home_opens_the_same_page(server, tabs, tmp_path):
    page = tabs.open({"width": 1280, "height": 900})
    open_page(page, server, "explore", LINK)
    assert_no_error(page, "explore from the link")
    wanted = query(page)
    shown = drawn_numbers(page)
    path = Path(download(page, "download_scenario_file", tmp_path))
    assert path.name == "dppca_scenario.toml"
    assert Scenario.from_file(path).to_query() == wanted

    fresh = tabs.open({"width": 1280, "height": 900})
    open_page(fresh, server, "")
    fresh.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    fresh.get_by_text("Scenario opened").wait_for(timeout=60_000)
    settle(fresh)
    assert_no_error(fresh, "home after opening the scenario file")
    assert query(fresh) == wanted
    fresh.get_by_role("link", name="Explore").first.click()  # the same session, on to the page the link opened
    fresh.wait_for_selector(NUMBERS, timeout=240_000)
    numbers = drawn_numbers(fresh)
    assert_no_error(fresh, "explore after opening the scenario file")
    assert query(fresh) == wanted
    assert numbers == shown
