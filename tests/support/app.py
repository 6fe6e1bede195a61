"""Reading the app as AppTest runs it: its pages, a metric's value, the text a Markdown source shows, a chart's
numbers, and the check that a run raised and showed no error."""

import base64
import re

import numpy as np

from ui.page_titles import PAGE_TITLES


#: every page of the app, Home first
PAGES = [f"pages/{key}.py" for key in PAGE_TITLES]


def metric(at, label, index=0):
    values = [m.value for m in at.metric if m.label == label or m.label.startswith(label + " (")]
    assert values, f"no metric {label!r} on the page; metrics: {[m.label for m in at.metric]}"
    return values[index]


def plain(markdown: str) -> str:
    """The text a Markdown source shows: backslash escapes and the zero-width spaces that break autolinks removed."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u200b", "")


def assert_clean(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def plotly_array(value) -> np.ndarray:
    """A plotly array from a figure's JSON: a list, or a typed array {"dtype", "bdata"[, "shape"]}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return flat.reshape([int(x) for x in str(shape).split(",")]) if shape else flat
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], dict):
        return np.stack([plotly_array(v) for v in value])
    return np.asarray(value, dtype=float)
