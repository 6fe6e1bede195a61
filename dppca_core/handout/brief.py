"""The handout: a publishable brief (one printable HTML page) and a publishable deck, made from the publishable file
alone (:func:`dppca_core.publishable.publishable_file`, as the Report's JSON holds it).

What was released and for what purpose, the guarantee in words (the attacker's odds and its best test), ε beside
well-known deployments with their privacy unit and source, the budget's parts in units that add up, the variance the
released directions capture against k directions at random, and one line to act on. Every number shown is in the
file (a published output, a public setting, or the file's own post-processing of them, "in_words"); nothing comes
from the raw data, no seed, no link to the app. Refused for a file whose releases state no guarantee.

Pure functions (no Streamlit calls); every string is HTML-escaped; no script and no network in the brief, one small
fitting script in the deck (dppca_core/handout/slides.py).
"""

from __future__ import annotations

import html

import pandas as pd

from dppca_core import publishable, reading
from dppca_core.reading import number

from .results import release_slides, results_html
from .slides import BARS_CSS, Slide
from .slides import build_deck as slide_deck

#: first line of the brief (fixed text)
BRIEF_LINE = (
    "Publishable brief: made only from a publishable release (what its privacy proof covers), its public "
    "settings and its public schema. You may hand it to anyone."
)
#: first line of the publishable deck (fixed text)
DECK_LINE = (
    "Publishable slides: made only from a publishable release (what its privacy proof covers), its public "
    "settings and its public schema. You may show them to anyone."
)
BRIEF_CSS = (
    """
body{font-family:system-ui,sans-serif;color:#111;max-width:860px;margin:1.5rem auto;padding:0 1.2rem;line-height:1.45}
h1{font-size:1.7rem;margin:.6rem 0} h2{font-size:1.2rem;margin:1.3rem 0 .4rem;border-bottom:1px solid #ccc}
p,li,td,th{overflow-wrap:break-word} .publishable{border:2px solid #1b5e20;background:#e8f5e9;padding:.5rem .8rem;
  font-weight:600} .warn{border-left:5px solid #8a6d00;background:#fff8e1;padding:.5rem .8rem}
  .rec{border-left:5px solid #1f4e8c;background:#eef3fa;padding:.5rem .8rem;font-weight:600}
h3{font-size:1.1rem;margin:1.1rem 0 .3rem} h4{font-size:1rem;margin:.8rem 0 .3rem} .fig{margin:.3rem 0}
table{border-collapse:collapse;width:100%;font-size:.9rem} td,th{padding:.25rem .4rem;
  border-bottom:1px solid #ddd;text-align:left;vertical-align:top} .note{color:#444;font-size:.9rem}
@media print{@page{size:A4;margin:14mm} body{max-width:none;margin:0;padding:0;font-size:10.5pt}
  h2,h3,h4{break-after:avoid} table,.meter,.bar,.rec,.fig{break-inside:avoid}}
"""
    + BARS_CSS
)
#: a segment of the budget bar carries its percentage when it is at least this wide (the legend lists every part)
LABELLED_SHARE = 6


def _check(file: dict) -> None:
    if file.get("format") != publishable.FORMAT:
        raise ValueError("a brief is made from a publishable file (dppca_core.publishable.publishable_file).")
    if not publishable.has_guarantee(file):
        raise ValueError(
            "these releases state no privacy guarantee: there is nothing to hand out. Fix the choices "
            "the file names and draw the releases again."
        )


def _esc(value) -> str:
    return html.escape(str(value))


def _pct(x: float, digits: int = 0) -> str:
    return f"{100 * x:.{digits}f}%"


# -- the pieces, shared by the brief and the deck ----------------------------------------------------------------


def _title(file: dict) -> str:
    settings = file["settings"]
    return f"A private principal component analysis of {settings.get('data', 'a table')}"


def released_lines(file: dict) -> list[str]:
    """What was released and for what purpose, and the public settings it was drawn with, one line each."""
    settings, schema = file["settings"], file["schema"]
    columns = schema.get("columns")
    d = settings.get("d")
    words = [file["purpose"]]
    if columns:
        words.append(f"The {d} features, in this order (the public schema): " + ", ".join(columns) + ".")
    if schema.get("replacement"):
        words.append(
            "A missing or unreadable cell was replaced by a public value: "
            + ", ".join(f"{c} → {v}" for c, v in schema["replacement"].items())
            + "."
        )
    titles = [rel["title"] for rel in file["releases"].values()]
    ks = sorted({entry["utility"]["k"] for entry in file["in_words"].values()})
    words.append(
        f"Released: {', '.join(titles)}; each gives {' or '.join(map(str, ks))} directions (components)"
        + _outputs_words(file)
        + "."
    )
    k = settings.get("k", {})
    if k:
        words.append("How k was chosen: " + k["words"] + ".")
    for key, name in (("scaling", "Scaling"), ("centring", "Centring"), ("radius", "Clipping radius")):
        if key in settings:
            extra = ""
            if key == "scaling" and settings[key].get("bounds"):
                extra = " (bounds: " + ", ".join(number(b) for b in settings[key]["bounds"]) + ")"
            words.append(f"{name}: {settings[key]['words']}{extra}.")
    relation = f"Neighbouring datasets: {settings['neighbors_words']}"
    if settings.get("n") is not None:
        relation += f"; n = {settings['n']} rows (public under this relation)"
    words.append(relation + ".")
    for item in file.get("left_out", []):
        words.append(f"Left out (not publishable): {item['title']}: {item['reason']}")
    return words


def _outputs_words(file: dict) -> str:
    names = {
        "explained_variance_ratio": "the share of variance of each",
        "mean": "a mean row",
        "scores": "a score plot",
        "radius": "the clipping radius it chose",
        "column_scales": "column scales",
    }

    def published(rel: dict, key: str) -> bool:  # shares of variance count where measured from their own share
        if key == "explained_variance_ratio":
            return "eigenvalues" in rel.get("facts", {}).get("budget", {})
        return key in rel.get("outputs", {})

    found = [words for key, words in names.items() if any(published(rel, key) for rel in file["releases"].values())]
    return (", with " + ", ".join(found)) if found else ""


def guarantee_lines(file: dict) -> list[str]:
    """The guarantee in words: per release, its ε and δ, the attacker's odds and its best test; then the releases
    together (they are made from the same data, so publishing them all spends every one's budget)."""
    out = []
    for mech, rel in file["releases"].items():
        words = file["in_words"][mech]
        delta = f", δ = {number(rel['delta'])}" if rel["delta"] else ""
        out.append(
            f"{rel['title']} (ε = {number(rel['epsilon'])}{delta}): {words['odds']['sentence']} "
            f"{words['best_test']['sentence']}"
        )
    both = file.get("together")
    if both:
        out.append(
            f"{together_words(both)} (made from the same data, their guarantees compose: ε = {number(both['epsilon'], 3)}, "
            f"δ = {number(both['delta'])}, their exact composition, not the sum of their ε): {both['odds']['sentence']} "
            f"{both['best_test']['sentence']}"
        )
    return out


def together_words(both: dict) -> str:
    """What the file's ``together`` composes, in words: its releases and the earlier spends that shaped them."""
    count = both["releases"]
    releases = (
        "This release" if count == 1 else "Both releases" if count == 2 else f"All {count} releases"
    ) + " together"
    earlier = both.get("earlier", 0)
    if earlier:
        looks = "private look" if earlier == 1 else "private looks"
        releases += f" with the {earlier} earlier {looks} at these data that shaped {'it' if count == 1 else 'them'}"
    return releases


def warning_lines(file: dict) -> list[str]:
    """What a reader must know before trusting the guarantee: a δ above 1/n (n public under replace-one)."""
    settings = file["settings"]
    found = reading.delta_warning(settings.get("delta"), settings.get("n"))
    return [found] if found else []


def context_table(file: dict) -> pd.DataFrame:
    """This release's ε beside the deployments of the file's context, with what each ε protects and its source."""
    settings = file["settings"]
    rows = [
        {
            "deployment": "This release (each one)",
            "ε": number(settings["epsilon"]),
            "δ": number(settings["delta"]) if settings.get("delta") else "0",
            "what ε protects": "one person's row: " + settings["neighbors_words"],
            "source": "this file",
        }
    ]
    both = file.get("together")
    if both:
        rows.append(
            {
                "deployment": together_words(both) + " (composed)",
                "ε": number(both["epsilon"], 3),
                "δ": number(both["delta"]),
                "what ε protects": "one person's row, for every release of this file",
                "source": "this file",
            }
        )
    for c in sorted(file["context"], key=lambda c: c["epsilon"]):
        rows.append(
            {
                "deployment": c["name"],
                "ε": number(c["epsilon"]),
                "δ": number(c["delta"]) if c.get("delta") else "0",
                "what ε protects": f"{c['unit']} ({c['model']} model)",
                "source": c["source"],
            }
        )
    return pd.DataFrame(rows)


CONTEXT_NOTE = (
    "The units differ: a deployment's ε may protect one report, one day or a whole data product, and in "
    "the local model each device randomises its own report. Compare with care."
)


def _budgets(file: dict) -> list[tuple[str, dict]]:
    """(titles, budget parts) for each distinct budget among the releases."""
    seen = []
    for mech, words in file["in_words"].items():
        budget = words.get("budget")
        if budget is None:
            continue
        for entry in seen:
            if entry[1] == budget:
                entry[0].append(words["title"])
                break
        else:
            seen.append(([words["title"]], budget))
    return [(", ".join(titles), budget) for titles, budget in seen]


def budget_html(budget: dict) -> str:
    """The budget's parts as one bar (each segment its share, in the unit in which they add up) and a legend."""
    segments, legend = [], []
    for part in budget["parts"]:
        colour = publishable.PART_COLOURS.get(part["part"], "#555")
        label = f"{part['percent']}%" if part["percent"] >= LABELLED_SHARE else ""
        segments.append(f"<span style='width:{part['percent']}%;background:{colour}'>{label}</span>")
        legend.append(
            f"<span class='key' style='background:{colour}'></span>{_esc(part['words'])}: " f"{part['percent']}%"
        )
    unit = "μ²" if budget["unit"] == "mu^2" else "ε"
    return (
        f"<div class='bar' role='img' aria-label='budget parts'>{''.join(segments)}</div>"
        f"<p>{' · '.join(legend)} (shares of {unit}, adding up to 100%)</p><p class='note'>"
        f"{_esc(budget['sentence'])}</p>"
    )


def utility_html(file: dict) -> str:
    """Each release's captured variance against k directions at random, as meters, with the sentence on the
    optimum."""
    rows = []
    for words in file["in_words"].values():
        u = words["utility"]
        if u["captured"] is None:
            why = (
                "the noise was larger than the variance it measures"
                if u["measured"] == "too noisy"
                else "the release had no eigenvalue share, so it published no honest estimate of the variance it "
                "captures"
            )
            rows.append(f"<p>{_esc(words['title'])}: not measured ({why}).</p>")
            continue
        rows.append(
            _meter(f"{words['title']}", u["captured"], "#1f4e8c", f"± {_pct(u['standard_error'])}")
            + _meter(f"k = {u['k']} directions at random", u["random"], "#999")
        )
    return "".join(rows) + f"<p class='note'>{_esc(UTILITY_NOTE)}</p>"


UTILITY_NOTE = (
    "Captured variance: the share of the data's variance along the released directions, as each release "
    "estimates it privately from its eigenvalue share (± one standard error of that estimate's noise). "
    "k directions drawn at random capture k/d of it "
    "on average. The best k directions for these data capture at least as much as any k directions; how "
    "much more is not published, because that number would be read from the data without privacy."
)


def _meter(label: str, value: float, colour: str, error: str = "") -> str:
    width = min(max(value, 0.0), 1.0)
    return (
        f"<div class='meter'><span>{_esc(label)}</span><div class='track'><div class='fill' style='width:"
        f"{100 * width:.1f}%;background:{colour}'></div></div><span>{_pct(value)} {_esc(error)}</span></div>"
    )


# -- the brief -----------------------------------------------------------------------------------------------


def build_brief(file: dict) -> str:
    """The publishable brief: one printable HTML page from the publishable ``file`` alone."""
    _check(file)
    released = "".join(f"<li>{_esc(x)}</li>" for x in released_lines(file)[1:])
    guarantees = "".join(f"<p>{_esc(x)}</p>" for x in guarantee_lines(file))
    warnings = "".join(f"<p class='warn'>{_esc(x)}</p>" for x in warning_lines(file))
    budgets = "".join(
        (f"<p><b>{_esc(titles)}</b></p>" if len(_budgets(file)) > 1 else "") + budget_html(budget)
        for titles, budget in _budgets(file)
    )
    if not budgets:
        budgets = "<p>The whole budget of each release went to its components.</p>"
    context = context_table(file).to_html(index=False, border=0, escape=True)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Publishable brief: {_esc(_title(file))}</title>
<meta name="viewport" content="width=device-width"><style>{BRIEF_CSS}</style></head>
<body><p class="publishable">{_esc(BRIEF_LINE)}</p>
<h1>{_esc(_title(file))}</h1>
<h2>What was released, and why</h2><p>{_esc(file['purpose'])}</p><ul>{released}</ul>
<h2>Results</h2>{results_html(file)}
<h2>The guarantee in words</h2>{warnings}{guarantees}
<h2>ε beside well-known deployments</h2>{context}<p class="note">{_esc(CONTEXT_NOTE)}</p>
<h2>How the budget is split</h2>{budgets}
<h2>Utility: better than random?</h2>{utility_html(file)}
<h2>Recommendation</h2><p class="rec">{_esc(file['recommendation'])}</p>
<p class="note">Made with DP-PCA Explorer {_esc(file.get('software', {}).get('version', ''))} from its publishable file (format {_esc(file['format'])}
{_esc(file['format_version'])}, {_esc(file['created'])}). Sources of the deployments: {_sources(file)}</p>
</body></html>"""


def _sources(file: dict) -> str:
    seen = {}
    for c in file["context"]:
        seen.setdefault(c["url"], c["source"])
    return "; ".join(f"<a href='{html.escape(url, quote=True)}'>{_esc(source)}</a>" for url, source in seen.items())


# -- the deck ------------------------------------------------------------------------------------------------


def deck_slides(file: dict) -> list[Slide]:
    """The publishable deck's slides: what was released, the guarantee, ε in context, the budget, utility, the
    recommendation."""
    lines = released_lines(file)
    out = [
        Slide("What was released, and why", lines[:1] + lines[1:6]),
        Slide("The guarantee in words", warning_lines(file) + guarantee_lines(file)),
        Slide("ε beside well-known deployments", [CONTEXT_NOTE], table=context_table(file)),
        Slide(
            "How the budget is split",
            [],
            html="".join(
                (f"<p><b>{_esc(titles)}</b></p>" if len(_budgets(file)) > 1 else "") + budget_html(budget)
                for titles, budget in _budgets(file)
            )
            or "<p>The whole budget of each release went to its " "components.</p>",
        ),
        Slide("Utility: better than random?", [], html=utility_html(file)),
        Slide("Recommendation", [file["recommendation"]]),
    ]
    if len(lines) > 6:
        out.insert(1, Slide("How it was made", lines[6:]))
    position = 2 if len(lines) > 6 else 1  # the results right after what was released
    for mech in reversed(list(file["releases"])):
        out[position:position] = release_slides(file, mech)
    return out


def build_deck(file: dict) -> str:
    """The publishable deck: slides from the publishable ``file`` alone (no figure library, no link)."""
    _check(file)
    return slide_deck(
        _title(file),
        DECK_LINE,
        deck_slides(file),
        kind="publishable",
        record_class="publishable",
        data_note=f"{file['settings'].get('data', 'a table')}, {file['settings'].get('d')} " "features",
    )
