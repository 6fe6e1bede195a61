"""Showing user-controlled text (URL values, file and column names, messages that quote them) as text.

Streamlit renders Markdown (links, images, colour directives, icons) in st.markdown, st.error, st.caption and
widget labels, and GitHub-style autolinks turn a bare URL into a link. Every string that a user, a link or an
uploaded file controls goes through :func:`md_escape` (or :func:`literal`) before it is interpolated.

Control and bidirectional formatting characters (a right-to-left override U+202E makes the text after it display
reversed: ``report\u202egpj.csv`` shows as ``reportvsc.jpg``) are neutralised by :func:`plain`, the one function
every display path calls: names enter the app through it (``ui.data.Dataset``, and the library's reader applies
the same rule to the names it reads), and :func:`md_escape` applies it again to whatever it escapes.
"""

from __future__ import annotations

import re

from dppca_core.data.files import plain_name

#: how a number input shows its value: four significant digits, as dppca_core.reading.number writes every number a
#: person reads (a radius of √6 showed as 2.449489742783178); the value itself, and the link, stay exact
NUMBER_FORMAT = "%.4g"

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$=\"'&^])")
_ZWSP = "\u200b"


#: ``plain(value)``: ``value`` as text that displays as it reads: line breaks and tabs become a space, and control and
#: bidirectional formatting characters visible escapes such as ``\u202e`` (the rule the library's reader applies
#: to the names it reads, :func:`dppca_core.data.tables.plain_name`)
plain = plain_name


def md_escape(value) -> str:
    """``value`` as Markdown that renders exactly as the text: control and bidirectional characters neutralised
    (:func:`plain`), punctuation backslash-escaped, autolinks broken."""
    text = plain(value)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    # GFM autolinks ("http://", "www.") survive backslash escapes in some renderers: split them invisibly
    return re.sub(r"(?i)(www|https?|ftp|mailto)", lambda m: m.group(1)[0] + _ZWSP + m.group(1)[1:], text)


def literal(value, limit: int = 200) -> str:
    """``value`` shortened to ``limit`` characters and escaped, for names shown inside a sentence."""
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return md_escape(text)
