"""What the Data page says of a table beyond its column report (pure functions, no Streamlit calls).

* :func:`table_facts`: the table's public facts as scenario settings (its number of columns, and its number of rows
  where n is public), so that the scenario file and the link of an uploaded table say its shape, not the synthetic
  default's (n = 2000, d = 20).
* :func:`fill_warning`: a public fill value (what a bad cell becomes) that lies outside every value its column
  holds, e.g. 0 for a weight or a horsepower: each filled row then becomes an outlier the components follow. A hint
  read from the cells, for the data owner only; the fill itself stays a public choice, never read from the data.
"""

from __future__ import annotations

import numpy as np

from dppca_core.scenario import FIELDS
from dppca_core.scenario import Settings

#: the columns named in one fill warning (the rest counted)
NAMED = 4


def table_facts(vals: dict, ds) -> dict:
    """{setting: value} of the table's public facts for the scenario of a table (an upload, a server file, a shipped
    sample): d, its number of analysed columns (the declared schema), and n, its number of rows, only where it is
    public (neighbours that replace one row); {} for data the app makes, and for a fact outside the setting's range
    (the scenario keeps what it had)."""
    s = Settings(vals)
    if s.source == "synthetic" or s.source.startswith("preset:"):
        return {}
    facts = {"d": int(ds.d)}
    if s.neighbors == "replace":
        facts["n"] = int(ds.n)
    out = {}
    for name, value in facts.items():
        try:
            out[name] = FIELDS[name].validate(value)
        except (TypeError, ValueError):
            continue
    return out


def fill_warning(parsed, choice) -> str | None:
    """Why the public fill of some analysed columns misleads, or None: its value lies outside the range of every
    value the column holds, and the column has bad cells it replaces. ``parsed``: the ParsedTable; ``choice``: the
    TableChoice (columns, fill)."""
    fills = dict(choice.fill)
    far = []
    for column in choice.columns:
        if column not in fills:
            continue
        values = np.asarray(parsed.numbers(column), dtype=float)
        finite = values[np.isfinite(values)]
        bad = values.size - finite.size
        if bad == 0 or finite.size == 0:
            continue
        lo, hi = float(finite.min()), float(finite.max())
        if not lo <= fills[column] <= hi:
            far.append((column, fills[column], lo, hi, bad))
    if not far:
        return None
    named = "; ".join(
        f"{column}: {bad:,} bad cell{'s' if bad > 1 else ''} become {value:g}, its values run from {lo:g} to {hi:g}"
        for column, value, lo, hi, bad in far[:NAMED]
    ) + (f"; and {len(far) - NAMED} more column(s)" if len(far) > NAMED else "")
    return (
        f"A bad cell's public value lies outside every value its column holds ({named}): each filled row becomes an "
        "outlier that the components follow, and the headline numbers describe those rows. Type a typical value "
        "from public knowledge (a field guide, the middle of a known range) under 'A bad cell becomes', or leave "
        "such rows out (neighbours that add or remove one row). A hint read from the cells: for you only."
    )
