"""Showing user-controlled text (URL values, file and column names, messages that quote them) as text.

Streamlit renders Markdown (links, images, colour directives, icons) in st.markdown, st.error, st.caption and
widget labels, and GitHub-style autolinks turn a bare URL into a link. Every string that a user, a link or an
uploaded file controls goes through :func:`md_escape` (or :func:`literal`) before it is interpolated.
"""
from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$=\"'&^])")
_ZWSP = "\u200b"


def md_escape(value) -> str:
    """``value`` as Markdown that renders exactly as the text: punctuation backslash-escaped, autolinks broken."""
    text = str(value).replace("\r", " ").replace("\n", " ")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    # GFM autolinks ("http://", "www.") survive backslash escapes in some renderers: split them invisibly
    return re.sub(r"(?i)(www|https?|ftp|mailto)", lambda m: m.group(1)[0] + _ZWSP + m.group(1)[1:], text)


def literal(value, limit: int = 200) -> str:
    """``value`` shortened to ``limit`` characters and escaped, for names shown inside a sentence."""
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return md_escape(text)
