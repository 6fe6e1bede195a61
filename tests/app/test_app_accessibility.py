"""Every chart of the app carries its text alternative: a one-line summary and a "Show the numbers" table."""

import pytest

from tests.support.app import assert_clean

CHART_PAGES = ["pages/explore.py", "pages/data.py", "pages/report.py"]


@pytest.mark.parametrize("page", CHART_PAGES)
def test_each_chart_has_a_summary_and_its_numbers(app_test, page):
    at = app_test()
    at.run()
    at.switch_page(page).run()
    assert_clean(at)
    charts = at.get("plotly_chart")
    numbers = [e for e in at.expander if e.label == "Show the numbers"]
    assert charts and len(numbers) == len(charts)
    for box in numbers:
        tables = box.dataframe
        assert len(tables) == 1 and len(tables[0].value) > 0
