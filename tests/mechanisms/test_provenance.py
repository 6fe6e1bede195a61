"""Every mechanism says where it comes from, and says it the same way everywhere: its registration declares a
provenance, whose audit numbers are docs/audit-table.md's and whose verdicts are docs/reproduce.md's; the generated
blocks of docs/mechanisms.md are current; the publishable file carries it."""

import dataclasses
import json
import re
from pathlib import Path

import jsonschema
import pytest

import dppca_core as dc
from dppca_core import publishable, registry
from dppca_core.mechanisms import provenance
from tests.helpers import spiked_rows

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_every_mechanism_declares_a_provenance():
    missing = [name for name in dc.mechanism_names() if dc.get_mechanism(name).provenance is None]
    assert not missing, f"these mechanisms declare no provenance (registry Provenance): {missing}"
    for name in dc.mechanism_names():
        p = dc.get_mechanism(name).provenance
        assert {a.relation for a in p.audits} <= set(dc.get_mechanism(name).relations), name


def test_a_mechanism_without_one_fails_the_check_and_says_so():
    spec = dataclasses.replace(dc.get_mechanism("analyze_gauss"), name="ag_unsourced", provenance=None)
    registry.register(spec)
    try:
        assert "ag_unsourced" in [n for n in dc.mechanism_names() if dc.get_mechanism(n).provenance is None]
        assert provenance.lines(spec) == [
            ("Provenance", "none declared: where this mechanism comes from is not stated")
        ]
        assert provenance.as_dict(spec) is None
    finally:
        registry.unregister("ag_unsourced")
    with pytest.raises(ValueError, match="structure"):
        registry.Provenance(read="x", calibration="y", structure="guessed", proof="z")
    with pytest.raises(ValueError, match="verdict"):
        registry.Verdict("topk_spiked", "a claim", "failed")


def _table_rows(path: Path) -> list[dict]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    heads = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(heads, (c.strip() for c in line.strip("|").split("|")))) for line in lines[1:]]


def test_the_declared_audits_are_the_audit_table_s():
    """Each declared audit matches the table's row for its mechanism, relation and statistic at the claim (its
    median share, to the table's rounding), and a declared power check matches a row run above the claim that
    refuted on every seed."""
    rows = [r for r in _table_rows(DOCS / "audit-table.md") if "mechanism" in r and r.get("statistic")]
    for name in dc.mechanism_names():
        for record in dc.get_mechanism(name).provenance.audits:
            at_claim = [
                r
                for r in rows
                if (r["mechanism"], r["relation"], r["statistic"]) == (name, record.relation, record.statistic)
                and not re.search(r"run at|half the noise|second reading", r["case"])
            ]
            assert at_claim, (name, record)
            share = float(at_claim[0]["share of target, median [range]"].split("%")[0]) / 100
            assert share == pytest.approx(record.share, abs=0.006), (name, record, share)
            assert at_claim[0]["verdict (seeds refuted)"].startswith("REFUTED") == record.refuted, (name, record)
            if record.refuted_at:
                power = [
                    r
                    for r in rows
                    if r["mechanism"] == name
                    and r["statistic"] == record.statistic
                    and f"run at {record.refuted_at:g}x" in r["case"]
                ]
                assert power and all(r["verdict (seeds refuted)"] == "REFUTED (3/3)" for r in power), (name, record)


def _claims_by_reproduction() -> dict:
    text = (DOCS / "reproduce.md").read_text(encoding="utf-8")
    text = text[text.index("## The reproductions") :]
    out, key = {}, None
    for line in text.splitlines():
        anchor = re.match(r'<a id="(\w+)"></a>', line)
        if anchor:
            key = anchor.group(1)
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) >= 3 and cells[1] in registry.VERDICTS:
            out.setdefault(key, []).append((cells[0], cells[1]))
    return out


def test_the_declared_verdicts_are_the_reproductions():
    """Each declared verdict names a claim of its reproduction's table in docs/reproduce.md (by its start) with the
    status the table gives; every claim of the reproductions of these papers is declared by some mechanism."""
    claims = _claims_by_reproduction()
    declared = set()
    for name in dc.mechanism_names():
        for v in dc.get_mechanism(name).provenance.verdicts:
            match = [status for claim, status in claims.get(v.reproduction, []) if claim.startswith(v.claim)]
            assert match == [v.status], (name, v, claims.get(v.reproduction))
            declared.add((v.reproduction, v.claim))
    for key, rows in claims.items():
        for claim, _ in rows:
            assert any(k == key and claim.startswith(c) for k, c in declared), f"no mechanism declares {key}: {claim}"


def test_the_generated_blocks_of_mechanisms_md_are_current():
    text = (DOCS / "mechanisms.md").read_text(encoding="utf-8")
    assert (
        provenance.render_doc(text) == text
    ), "run: python -m dppca_core.mechanisms.provenance --docs docs/mechanisms.md"
    for name in dc.mechanism_names("pca"):
        assert f"<!-- provenance:{name} -->" in text
    assert "structure inferred from the abstract; rows only" in text.split("<!-- provenance:topk_dp_pca -->")[1]


def test_the_publishable_file_carries_each_release_s_provenance():
    X, _ = spiked_rows(300, 5, 2, seed=1)
    pub = dc.publish(dc.run("analyze_gauss", X, 2, 1.0, 1e-5, seed=None))
    file = publishable.publishable_file({"analyze_gauss": pub})
    entry = file["releases"]["analyze_gauss"]["provenance"]
    assert entry == provenance.as_dict(dc.get_mechanism("analyze_gauss"))
    assert entry["audits"][0]["share"] == 0.77 and entry["structure"] == "paper"
    schema = json.loads((DOCS / "publishable-release.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(publishable.file_json(file)), schema)


def test_the_explore_card_shows_the_provenance_and_flags_an_inferred_structure(app_test):
    """On Explore each mechanism's card folds its provenance (the same lines as the docs) under an expander, and a
    mechanism whose structure is inferred carries a badge saying so."""
    at = app_test(mechs="analyze_gauss,topk_dp_pca", reps="1", n="2000", d="10")
    at.switch_page("pages/explore.py").run()
    assert not at.exception, [e.value for e in at.exception]
    expanders = [e for e in at.expander if e.label.startswith("Where it comes from")]
    assert len(expanders) == 2
    text = " ".join(m.value for e in expanders for m in e.markdown)
    for name in ("analyze_gauss", "topk_dp_pca"):
        for label, line in provenance.lines(dc.get_mechanism(name)):
            assert f"**{label}.**" in text and line.split(" (")[0][:40].replace("*", "") in text.replace("\\", "")
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert sum("structure inferred" in b for b in badges) == 1, badges  # topk_dp_pca's card only
