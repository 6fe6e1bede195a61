"""End-to-end (issue 35): an analyst's messy table, uploaded with the defaults, opens on the Data page without an error
box (every measurement kept, each bad cell replaced), the link records the columns, a flagged year column leaves with
one click; then Explore, the score plot by group (its groups declared in one click), Trade-offs with a sweep of n on
the table's own rows and the Report, each without an error box and with no text clipped or overlapping at 1280x720."""

import json

from tests.e2e.helpers import (
    assert_no_error,
    assert_text_fits,
    eventually,
    go_to,
    query,
    settle,
    upload_on_data_page,
    wait_metrics,
)
from tests.messy import MEASUREMENTS, messy_csv


#: the analyst's settings beyond the upload's defaults: a public R, one mechanism, few repetitions, a scores share with
#: the plot by group, the score view, and a sweep of n
SETTINGS = "R=6000.0&mechs=analyze_gauss&reps=2&sreps=2&bscores=0.1&sgroup=true&view=scores&sweep=n"
SPECIES = ("Adelie", "Chinstrap", "Gentoo")


def _check(page, where):
    assert_no_error(page, where)
    assert_text_fits(page, where)


def test_a_messy_upload_opens_keeps_its_measurements_and_reaches_explore(server, tabs, tmp_path):
    csv = tmp_path / "penguins.csv"
    csv.write_bytes(messy_csv())
    page = tabs.open({"width": 1280, "height": 720})
    upload_on_data_page(page, server, csv, SETTINGS)
    _check(page, "data after a messy upload")
    assert page.get_by_text("on very different scales").count() == 1  # the units, at once
    assert json.loads(query(page)["cols"]) == ["id", *MEASUREMENTS, "year", "station"]
    assert query(page)["label"] == "species"
    body = page.inner_text("body")
    assert "on_bad" not in body and "drop_column" not in body
    chips = page.locator('[data-testid="stMultiSelect"]').first
    assert chips.evaluate(
        "e => [...e.querySelectorAll('*')].every(x => x.scrollWidth <= x.clientWidth + 1)"
    ), "the declared columns do not fit their box"
    page.get_by_role("button", name="Leave out year").click()
    # the address is rewritten during the rerun (the columns are briefly absent from it): wait for the new list
    page.wait_for_function(
        "() => { const cols = new URLSearchParams(location.search).get('cols');"
        " return cols !== null && !cols.includes('year'); }",
        timeout=60_000,
    )
    settle(page)
    assert json.loads(query(page)["cols"]) == ["id", *MEASUREMENTS, "station"]
    assert_no_error(page, "data after leaving the year out")
    go_to(page, "Explore")
    wait_metrics(page)
    _check(page, "explore after a messy upload")
    assert json.loads(query(page)["cols"]) == ["id", *MEASUREMENTS, "station"]

    # the score plot by group: the species declared public in one click, a panel per species
    page.get_by_role("button", name="Declare these 3 groups public").click()
    page.wait_for_function("() => new URLSearchParams(location.search).has('slabels')", timeout=60_000)
    settle(page, timeout=120_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot .annotation-text')].some("
        "a => a.textContent.startsWith('Analyze Gauss: '))",
        timeout=120_000,
    )

    def every_species_has_its_panel():
        panels = page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot .annotation-text')]" ".map(a => a.textContent)"
        )
        assert {f"Analyze Gauss: {s}" for s in SPECIES} <= set(panels), panels

    eventually(page, every_species_has_its_panel)  # the panels of the run before the click may show a moment
    _check(page, "the score plot by group")

    # Trade-offs: n swept on the table's own rows (subsamples), the planner on the same sweep
    go_to(page, "Trade-offs")
    page.wait_for_selector(".js-plotly-plot", timeout=240_000)
    settle(page, timeout=240_000)
    _check(page, "trade-offs with a sweep of n on the table")
    body = page.inner_text("body")
    assert "your table's 344 rows and random subsets of them" in body
    assert "smallest n (of your 344 rows)" in body and "needs the synthetic source" not in body

    go_to(page, "Report")
    page.wait_for_selector('[data-testid="stDownloadButton"]', timeout=240_000)
    settle(page, timeout=240_000)
    _check(page, "the report of a messy upload")
