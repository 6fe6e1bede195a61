"""Reading a handout against its publishable file (tests/handout/test_handout.py, the browser's tests/e2e/test_handout.py,
the release notebook's tests/app/test_notebooks.py): the schema's check, the text a document shows, and the numbers it
shows that the file does not hold."""

import html as html_lib
import json
import re
from tests.support import ROOT


SCHEMA = json.loads((ROOT / "docs" / "publishable-release.schema.json").read_text(encoding="utf-8"))

#: words of the exploration's non-private diagnostics and of seeded runs: none may reach the handout
DIAGNOSTIC_WORDS = (
    "seed",
    "localhost",
    "diagnostic",
    "subspace distance",
    "captured energy",
    "clipped",
    "support f1",
    "exact pca",
    "exploration record",
)


def validate(payload: dict) -> None:
    """Every error of ``payload`` against the schema in docs/, all at once."""
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(payload), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message[:200]}" for e in errors[:5]]


NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")
#: a number written with a power of ten as people read it (dppca_core.reading: "4.69 × 10⁻⁵", "10⁻⁶")
POWER = re.compile(r"(?:(\d[\d,]*(?:\.\d+)?) × )?10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_PLAIN = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def plain_powers(text: str) -> str:
    """``text`` with each power of ten written as the computer writes it ("4.69 × 10⁻⁵" -> "4.69e-5"): a document and
    the strings of its file are read the same way."""
    return POWER.sub(lambda m: f"{m.group(1) or '1'}e{m.group(2).translate(_PLAIN)}", text)


def shown_text(doc: str) -> str:
    """The text a document shows: no style, script, slide counter, inline figure (its numbers are in the table
    beside it) or tag."""
    doc = re.sub(r"<(head|style|script|svg)\b.*?</\1>", " ", doc, flags=re.S)
    doc = re.sub(r"<p class='counter'>.*?</p>", " ", doc)
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", doc))


def file_numbers(file: dict) -> tuple[set, list]:
    """(numeric tokens written in the file, every number in it): what a handout may show (the released arrays too:
    the handout shows each release's loadings, shares of variance and what it used)."""
    public = file
    text = json.dumps(public, ensure_ascii=False)
    values = []

    def walk(node):
        if isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            values.append(float(node))
        elif isinstance(node, str):
            values.extend(float(t.replace(",", "")) for t in NUMBER.findall(plain_powers(node)))

    walk(public)
    return set(NUMBER.findall(plain_powers(text))), values


def stray_numbers(text: str, file: dict) -> list[str]:
    """The numbers in ``text`` that are neither written in the file nor one of its numbers rounded for display (as
    a number or a percentage, to the digits shown)."""
    tokens, values = file_numbers(file)
    stray = []
    for token in NUMBER.findall(plain_powers(text)):
        if token in tokens:
            continue
        value = float(token.replace(",", ""))
        mantissa, _, power = token.replace(",", "").partition("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        tolerance = 10.0 ** (int(power or 0) - decimals) + 1e-12  # shown rounded (percentages of bounds rounded up)
        # a token is read without its sign (a loading of -0.3 shows "0.3" to the pattern)
        if not any(abs(abs(v) - value) <= tolerance or abs(100 * abs(v) - value) <= tolerance for v in values):
            stray.append(token)
    return stray
