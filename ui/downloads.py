"""The Report's downloads, each built when its button is pressed (a callable ``data=`` of ``st.download_button``),
never on a rerun, and never rerunning the page (``on_click="ignore"``): one table of labels, file names and help, and
the one call that offers them (:func:`offer`)."""

from __future__ import annotations

import functools


def encoded(build, *args) -> bytes:
    """``build(*args)`` as UTF-8 bytes: a download built when its button is pressed."""
    return build(*args).encode()


#: the Report's downloads: key -> (label, file name, MIME type, icon, help)
DOWNLOADS = {
    "download_releases": (
        "Download the publishable releases (JSON)",
        "dppca_releases.json",
        "application/json",
        "data_object",
        "Components, privatised eigenvalues and other covered outputs, the guarantee (or, after a non-private choice, "
        "none), the public schema and settings, what it all means in words. No diagnostics, no seed. Its format: "
        "docs/publishable.md.",
    ),
    "download_brief": (
        "Publishable brief (HTML, printable)",
        "dppca_brief.html",
        "text/html",
        "description",
        "One printable page for stakeholders: what was released and why, the guarantee in words, ε beside known "
        "deployments, utility against a random baseline, a recommendation. Made from the JSON alone.",
    ),
    "download_publishable_slides": (
        "Publishable slides",
        "dppca_publishable_slides.html",
        "text/html",
        "slideshow",
        "The brief as a deck that opens offline in any browser. Made from the JSON alone.",
    ),
    "download_slides": (
        "Download slides",
        "dppca_slides.html",
        "text/html",
        "slideshow",
        "A deck that opens offline in any browser: one slide per figure and decision, each figure with its numbers; "
        "an exploration record like the HTML report.",
    ),
    "download_book": (
        "Download the budget book (CSV)",
        "dppca_budget_book.csv",
        "text/csv",
        "download",
        "Every spend on this table on this server: when, what, its exact curve, the code's version; never the rows.",
    ),
    "download_html": ("HTML report (offline)", "dppca_report.html", "text/html", "download", None),
    "download_script": (
        "Python script",
        "dppca_scenario.py",
        "text/x-python",
        "code",
        "Prints this page's table with the installed dppca_core package (same seeds).",
    ),
    "download_exploration_notebook": (
        "Exploration notebook",
        "dppca_exploration.ipynb",
        "application/x-ipynb+json",
        "menu_book",
        "A Jupyter notebook that prints this page's table with the installed dppca_core package (same seeds): an "
        "exploration record, like the script. Its format: docs/notebooks.md.",
    ),
    "download_release_notebook": (
        "Release notebook",
        "dppca_release.ipynb",
        "application/x-ipynb+json",
        "lock",
        "A Jupyter notebook whose release cell says what it will spend, spends the budget once on your data with "
        "fresh randomness and writes the publishable JSON, recording each spend in a budget book next to it; run "
        "again, it asks before spending again.",
    ),
}


def offer(container, key: str, build, *args) -> None:
    """The download ``key`` of :data:`DOWNLOADS` in ``container``, built by ``build(*args)`` when it is pressed."""
    label, name, mime, icon, help_text = DOWNLOADS[key]
    container.download_button(
        label,
        functools.partial(encoded, build, *args),
        name,
        mime,
        icon=f":material/{icon}:",
        key=key,
        on_click="ignore",
        width="stretch",
        help=help_text,
    )
