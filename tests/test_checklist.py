"""The checklist for a new mechanism and a new metric holds (issue 58): a mechanism and a metric registered at run
time, with nothing else edited, are accepted by the registry, the palette, the golden cases, the metrics' table and
the link. The fixture undoes the registrations, so no other test sees them. tests/figures/test_palette.py checks the colours
that exist for colour-blind distinctness and contrast; here, that the new ones come from that palette.
docs/architecture.md ("Where a change goes") says which files a real one touches."""

import dataclasses

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import figures, metrics, registry
from dppca_core.pipeline import experiments
from dppca_core.scenario import link
from tests.golden import make_golden
from tests.golden.cases import case_digest, cases_by_group
from tests.support.app import assert_clean

NEW_FAMILY, MEMBER, METRIC = "toy_family_head", "toy_central_member", "toy_peak"


@pytest.fixture
def toys():
    """Two PCA mechanisms (Analyze Gauss's function under other names): one declaring a family of its own, one
    joining its module's (the central mechanisms'); and a metric, the largest absolute loading."""
    base = dc.get_mechanism("analyze_gauss")
    registry.register(dataclasses.replace(base, name=NEW_FAMILY, family="toy family", short_name="Toy head"))
    registry.register(dataclasses.replace(base, name=MEMBER, short_name="Toy member"))

    @metrics.metric(
        METRIC, "Largest loading", column="largest loading", symbol="max |V|", lower_is_better=False, default_target=0.5
    )
    def peak(s: metrics.Scoring) -> float:
        return float(np.max(np.abs(s.components)))

    try:
        yield
    finally:
        registry.unregister(NEW_FAMILY)
        registry.unregister(MEMBER)
        metrics.unregister_metric(METRIC)


def test_the_registry_and_the_palette_accept_them(toys):
    """The new family takes the next palette colour, one of those tests/figures/test_palette.py holds apart from every other
    for every vision and at 3:1 on white; the new member its family's colour and the next marker."""
    assert {NEW_FAMILY, MEMBER} <= set(dc.mechanism_names("pca"))
    families = list(dict.fromkeys(dc.get_mechanism(m).family_name for m in dc.mechanism_names("pca")))
    assert families[-1] == "toy family" and figures.mechanism_color(NEW_FAMILY) == figures.PALETTE[len(families) - 1]
    others = {figures.mechanism_color(m) for m in dc.mechanism_names("pca") if m not in (NEW_FAMILY, MEMBER)}
    assert figures.mechanism_color(NEW_FAMILY) not in others  # a colour of its own
    assert figures.mechanism_color(MEMBER) == figures.mechanism_color("analyze_gauss")  # the central family's
    central = [
        m for m in dc.mechanism_names("pca") if dc.get_mechanism(m).family_name == dc.get_mechanism(MEMBER).family_name
    ]
    assert [figures.mechanism_symbol(m) for m in central] == list(figures.SYMBOLS[: len(central)])  # all told apart


def test_the_golden_cases_name_them_and_record_only_them(toys, tmp_path):
    """Both toys run Analyze Gauss's function, so their home is the central mechanisms' test module: make_golden
    writes their cases there (into a copy of the tree's records under tmp_path) and changes no other file."""
    groups, recorded = cases_by_group(), make_golden.load()
    absent = make_golden.missing(groups, recorded)
    assert set(absent) == {f"mechanisms/{NEW_FAMILY}", f"mechanisms/{MEMBER}"}  # named; nothing else is missing
    home = make_golden.home(f"mechanisms/{MEMBER}")
    assert home == "tests/mechanisms/test_central.py" == make_golden.home(f"mechanisms/{NEW_FAMILY}")
    (tmp_path / home).parent.mkdir(parents=True)
    (tmp_path / home).write_text((make_golden.ROOT / home).read_text())
    before = (tmp_path / home).read_text().splitlines()
    written = make_golden.write_missing(tmp_path, groups, recorded)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [home]
    after = (tmp_path / home).read_text().splitlines()
    assert set(before) <= set(after) and len(after) == len(before) + 4  # two cases each, one line a case
    case = f"run/{MEMBER}"
    assert make_golden.read(tmp_path / home)[case] == case_digest(groups[f"mechanisms/{MEMBER}"][case]())  # seeded


def test_the_metrics_table_and_the_link_accept_them(toys):
    options = dc.ReleaseOptions(k=2, epsilon=1.0, delta=1e-6)
    inp = experiments.input_for(np.random.default_rng(0).normal(size=(300, 5)) / 4, options)
    table, runs = experiments.compare(inp, {NEW_FAMILY: options, MEMBER: options}, reps=2, seed=1)
    assert table["mechanism"].tolist() == ["Toy head", "Toy member"] and "largest loading" in table
    assert runs[MEMBER].metric(METRIC).shape == (2,)
    values, notices = link.from_query({"mechs": f"{NEW_FAMILY},{MEMBER}", "metric": METRIC})
    assert not notices and values["metric"] == METRIC and values["target"] == 0.5
    assert set(values["mechs"].split(",")) == {NEW_FAMILY, MEMBER}


def test_explore_draws_a_card_for_the_new_metric(toys, app_test):
    """The new metric scores every release Explore draws and gets its card, as declared (label, range of the
    repetitions), with no edit of the page (a seed no other test uses, so no cached result without it is read)."""
    at = app_test(mechs="analyze_gauss", reps="3", seed="9177")
    at.switch_page("pages/explore.py").run()
    assert_clean(at)
    (card,) = [m for m in at.metric if m.label == "Largest loading"]
    assert 0.0 < float(card.value) <= 1.0 and card.delta.startswith("95%: ")


def test_nothing_of_them_is_left():
    assert not {NEW_FAMILY, MEMBER} & set(dc.mechanism_names()) and METRIC not in metrics.METRICS
