"""Where each mechanism comes from, in words: the app's card, docs/mechanisms.md (its generated blocks) and the
publishable file read a mechanism's declared :class:`dppca_core.registry.Provenance` through these functions, so all
three say the same.

    python -m dppca_core.mechanisms.provenance --docs docs/mechanisms.md   # rewrite the generated blocks
    python -m dppca_core.mechanisms.provenance --check docs/mechanisms.md  # exit 1 if they are stale

Each PCA mechanism's section of docs/mechanisms.md holds one block between ``<!-- provenance:NAME -->`` and
``<!-- /provenance -->`` (inserted after the section's first paragraph, its citation, the first time); the tensor
mechanisms share one table in the section "Orthogonal tensor decomposition".
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from ..registry import STRUCTURES, VERDICTS, MechanismSpec, get_mechanism, mechanism_names

RELATION_WORDS = {"replace": "replace one row (n public)", "add_remove": "add or remove one row (n private)"}
BLOCK_END = "<!-- /provenance -->"
TENSOR_ANCHOR = '<a id="tensor"></a>'


def _multiple(value: float) -> str:
    return f"{value:g}×"


def audit_words(record) -> str:
    """One audit in words: the share of its target it reached at the claim, where, and the power check."""
    text = (
        f"{RELATION_WORDS[record.relation].split(' (')[0]}: the attack ({record.statistic}) reached "
        f"{record.share:.0%} of its target at the claim, " + ("REFUTED" if record.refuted else "not refuted")
    )
    if record.refuted:
        return text
    if record.refuted_at:
        return text + f"; run at {_multiple(record.refuted_at)} its claim, refuted on every seed"
    return text + "; no run above its claim"


def verdict_words(verdicts) -> str:
    """The reproductions' verdicts counted by status, with the reproductions they come from."""
    if not verdicts:
        return "no reproduction judges a claim about it"
    counts = Counter(v.status for v in verdicts)
    keys = list(dict.fromkeys(v.reproduction for v in verdicts))
    counted = ", ".join(f"{status} {counts[status]}" for status in VERDICTS if counts[status])
    return f"{counted} (of {len(verdicts)} claims; {', '.join(keys)})"


def lines(spec: MechanismSpec) -> list[tuple[str, str]]:
    """(label, text) pairs: what was read, the calibration, the structure, what the proof covers, the last audit
    per relation, the reproductions' verdicts. A mechanism without a declared provenance says so."""
    p = spec.provenance
    if p is None:
        return [("Provenance", "none declared: where this mechanism comes from is not stated")]
    structure = STRUCTURES[p.structure] + (f": {p.structure_note}" if p.structure_note else "")
    relations = " and ".join(RELATION_WORDS[r] for r in spec.relations)
    audits = "; ".join(audit_words(a) for a in p.audits) or "not audited"
    return [
        ("Read", p.read),
        ("Calibration", p.calibration),
        ("Structure", structure),
        ("Proof covers", f"{relations}: {p.proof}"),
        ("Last audit", audits + " (docs/audit-table.md)"),
        ("Reproductions", verdict_words(p.verdicts)),
    ]


def summary(spec: MechanismSpec) -> str:
    """The provenance as one paragraph (the card's caption, the notes)."""
    return " ".join(f"{label}: {text.rstrip('.')}." for label, text in lines(spec))


def as_dict(spec: MechanismSpec) -> dict | None:
    """The provenance for the publishable file (None when none is declared): plain values, the words beside them."""
    p = spec.provenance
    if p is None:
        return None
    return {
        "read": p.read,
        "calibration": p.calibration,
        "structure": p.structure,
        "structure_words": STRUCTURES[p.structure] + (f": {p.structure_note}" if p.structure_note else ""),
        "proof": p.proof,
        "relations": list(spec.relations),
        "audits": [
            {
                "relation": a.relation,
                "statistic": a.statistic,
                "share": a.share,
                "refuted": a.refuted,
                "refuted_at": a.refuted_at,
            }
            for a in p.audits
        ],
        "verdicts": [{"reproduction": v.reproduction, "claim": v.claim, "status": v.status} for v in p.verdicts],
    }


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_block(spec: MechanismSpec) -> str:
    """One PCA mechanism's generated block for docs/mechanisms.md."""
    body = [f"* **{label}.** {_escape(text)}" for label, text in lines(spec)]
    verdicts = spec.provenance.verdicts if spec.provenance else ()
    if verdicts:
        body += ["", "| reproduction | the paper's claim | verdict |", "|---|---|---|"]
        body += [
            f"| [`{v.reproduction}`](reproduce.md#{v.reproduction}) | {_escape(v.claim)} | {v.status} |"
            for v in verdicts
        ]
    return "\n".join(
        [f"<!-- provenance:{spec.name} -->", "**Provenance** (generated from the registry).", ""] + body + [BLOCK_END]
    )


def tensor_block() -> str:
    """The tensor mechanisms' provenance, one table."""
    rows = ["| mechanism | read | calibration | structure | last audit | reproductions |", "|---|---|---|---|---|---|"]
    for name in mechanism_names("tensor"):
        cells = dict(lines(get_mechanism(name)))
        if "Read" not in cells:
            rows.append(f"| `{name}` | none declared | | | | |")
            continue
        keys = ("Read", "Calibration", "Structure", "Last audit", "Reproductions")
        rows.append(f"| `{name}` | " + " | ".join(_escape(cells[k]) for k in keys) + " |")
    return "\n".join(
        ["<!-- provenance:tensor -->", "**Provenance** (generated from the registry).", ""] + rows + [BLOCK_END]
    )


def _replace_or_insert(text: str, name: str, block: str, heading: str) -> str:
    """``text`` with the block of ``name`` replaced, or inserted after the first paragraph below ``heading``."""
    start = text.find(f"<!-- provenance:{name} -->")
    if start >= 0:
        stop = text.index(BLOCK_END, start) + len(BLOCK_END)
        return text[:start] + block + text[stop:]
    at = text.find(heading)
    if at < 0:
        raise ValueError(f"docs/mechanisms.md has no section {heading.strip()!r} for the mechanism {name!r}.")
    paragraph = text.find("\n\n", at + len(heading))  # the end of the section's first paragraph
    if paragraph < 0:  # the last section, one paragraph: the block goes at the end
        return text.rstrip("\n") + "\n\n" + block + "\n"
    return text[: paragraph + 2] + block + "\n\n" + text[paragraph + 2 :]


def render_doc(text: str) -> str:
    """docs/mechanisms.md with every generated provenance block as the registry says it now."""
    for name in mechanism_names("pca"):
        text = _replace_or_insert(text, name, markdown_block(get_mechanism(name)), f"\n## {name}\n")
    return _replace_or_insert(text, "tensor", tensor_block(), f"{TENSOR_ANCHOR}\n## Orthogonal tensor decomposition\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--docs", type=Path, help="rewrite the provenance blocks of this docs/mechanisms.md")
    what.add_argument("--check", type=Path, help="exit 1 when this docs/mechanisms.md's blocks are stale")
    args = parser.parse_args(argv)
    path = args.docs or args.check
    old = path.read_text(encoding="utf-8")
    new = render_doc(old)
    if args.check:
        stale = old != new
        print(f"{path}: provenance blocks {'stale: run --docs' if stale else 'current'}")
        return 1 if stale else 0
    path.write_text(new, encoding="utf-8")
    print(f"wrote the provenance blocks of {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
