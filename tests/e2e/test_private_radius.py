"""End-to-end (issue 22): upload a CSV, choose R privately on the Data page, draw a release to publish on the
Report, and download the Report: the budget breakdown and the R each release chose are in it."""

import json
import re

from tests.e2e.helpers import (
    draw_releases,
    assert_no_error,
    download,
    go_to,
    people_csv,
    query,
    settle,
    upload_on_data_page,
)


def test_upload_choose_r_privately_publish_and_download_the_report(server, tabs, tmp_path):
    csv = people_csv(tmp_path / "survey.csv", rows=300)
    page = tabs.open({"width": 1400, "height": 1600})
    upload_on_data_page(page, server, csv, "mechs=analyze_gauss&reps=3&center=private")
    page.get_by_text("chosen privately inside each release").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('rfrom') === 'private'", timeout=60_000)
    settle(page)
    assert page.get_by_text("Each release chooses R privately").count() == 1
    assert_no_error(page, "data page with R chosen privately")

    go_to(page, "Report")
    page.wait_for_selector('[data-testid="stDownloadButton"]', timeout=120_000)
    settle(page, timeout=120_000)
    assert query(page)["rfrom"] == "private"
    body = page.inner_text("body")
    assert "Every choice that depends on the data is private" in body
    assert "Clipping radius chosen privately" in body
    assert_no_error(page, "report with R chosen privately")

    doc = open(download(page, "download_html", tmp_path), encoding="utf-8").read()
    assert "How one release" in doc  # the budget breakdown (its figure and table)
    table = doc.split("Clipping radius chosen privately", 1)[1]
    radius = float(re.search(r"<td>([0-9.]+(?:e[+-]?[0-9]+)?)</td>", table).group(1))
    assert 1e-3 <= radius <= 1e4

    draw_releases(page)
    page.wait_for_selector('text="Download the publishable releases (JSON)"', timeout=120_000)
    released = json.loads(open(download(page, "download_releases", tmp_path), encoding="utf-8").read())
    released = released["releases"]["analyze_gauss"]
    assert released["guarantee"] != "none" and "radius" in released["outputs"]
    assert released["facts"]["budget"]["radius"]["share"] > 0
