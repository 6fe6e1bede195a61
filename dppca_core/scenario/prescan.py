"""A scenario file's structure counted in one linear pass before a TOML parser sees it (:func:`prescan`).

Python's TOML parser takes time and memory that grow with the square of a dotted key's length (one key of 8,000
parts: 16 KB of text, 434 MB of memory) and with the product of a table header's depth and the keys under it
(a 99 KB file: 22 s of CPU). A scenario file the app writes is small and flat: at most 2-part keys
(``[parameters.private_power]``), one level of lists, a few hundred keys and a few thousand list items (a table's
columns). So before parsing, a file is tokenised once by one regular expression (quoted strings and comments are
single tokens, so a dot or a bracket inside a column's name counts for nothing) and refused, in words, as soon as
it passes a limit of :data:`LIMITS`: each limit holds the largest scenario the app can write with room to spare,
and under all of them the parser's work is linear in the file's size.
"""

from __future__ import annotations

import re

#: the largest scenario file read: the largest scenario the app writes (2,000 declared columns named with 100
#: characters each, a public value for each, 500 bounds, every other setting at its longest) is 475 KB
MAX_FILE_BYTES = 600_000

#: limit -> (the most allowed, what it counts in words); the largest scenario the app writes has 4,700 lines,
#: 29,000 tokens, 2,200 keys, 20 tables, 2-part keys and lists one level deep
LIMITS = {
    "lines": (10_000, "lines"),
    "tokens": (60_000, "names, values and punctuation marks"),
    "keys": (5_000, "settings (key = value)"),
    "tables": (200, "table headers ([section])"),
    "parts": (4, "parts in one dotted name (a.b.c.d)"),
    "nesting": (4, "levels of nested lists, tables and [headers]"),
}

# one token each: a whole string (four kinds), a comment, a line end, blank space, a dot, a bracket or other mark,
# a run of anything else (a bare key, a number, a date), or a quote that opens no complete string
_TOKEN = re.compile(
    r"""
    (?P<string>
        \"\"\"(?:[^"\\]++|\\.|"(?!""))*+\"\"\""{0,2}
      | '''(?:[^']++|'(?!''))*+'''\'{0,2}
      | "(?:[^"\\\n]++|\\.)*+"
      | '[^'\n]*+'
    )
    | (?P<comment>\#[^\n]*+)
    | (?P<newline>\n)
    | (?P<blank>[ \t\r]++)
    | (?P<dot>\.)
    | (?P<open>[\[{])
    | (?P<close>[\]}])
    | (?P<mark>[=,])
    | (?P<bare>[^"'\#\n \t\r.\[\]{}=,]++)
    | (?P<quote>["'])
    """,
    re.VERBOSE | re.DOTALL,
)


def _refusal(limit: str) -> ValueError:
    most, words = LIMITS[limit]
    return ValueError(
        f"this file has more than {most:,} {words}, more than any scenario file holds: it is not one this app "
        "wrote. Download the scenario file again from the sidebar of the app."
    )


def prescan(text: str) -> dict:
    """The counts of :data:`LIMITS` in ``text`` (a scenario file's TOML), in one pass that stops at the first limit
    passed: ValueError in words then. Linear in the length of ``text``, whatever it holds; the counts bound what
    the parser will find (a parsed file has at most ``keys`` keys, ``tables`` headers, ``parts`` parts in any
    dotted name and ``nesting`` levels)."""
    if len(text) > MAX_FILE_BYTES:
        raise ValueError(f"this file is larger than {MAX_FILE_BYTES // 1000:,} kB: a scenario file is far smaller.")
    counts = dict.fromkeys(LIMITS, 0)
    counts["lines"] = text.count("\n") + 1
    if counts["lines"] > LIMITS["lines"][0]:
        raise _refusal("lines")
    most_tokens, most_keys, most_tables = LIMITS["tokens"][0], LIMITS["keys"][0], LIMITS["tables"][0]
    most_parts, most_nesting = LIMITS["parts"][0], LIMITS["nesting"][0]
    tokens = keys = tables = parts = nesting = deepest = longest = 0
    line_start, after_dot = True, False
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "blank" or kind == "comment":
            continue
        tokens += 1
        if tokens > most_tokens:
            raise _refusal("tokens")
        if kind == "bare" or kind == "string":
            parts = parts + 1 if after_dot else 1
            longest = max(longest, parts)
            if longest > most_parts:
                raise _refusal("parts")
            after_dot = False
        elif kind == "dot":
            after_dot = True
        else:
            parts, after_dot = 0, False
            if kind == "open":
                if line_start and nesting == 0:
                    tables += 1
                    if tables > most_tables:
                        raise _refusal("tables")
                nesting += 1
                deepest = max(deepest, nesting)
                if deepest > most_nesting:
                    raise _refusal("nesting")
            elif kind == "close":
                nesting = max(0, nesting - 1)
            elif kind == "mark" and match.group() == "=":
                keys += 1
                if keys > most_keys:
                    raise _refusal("keys")
        line_start = kind == "newline" or (line_start and kind == "open")
    counts.update(tokens=tokens, keys=keys, tables=tables, parts=longest, nesting=deepest)
    return counts
