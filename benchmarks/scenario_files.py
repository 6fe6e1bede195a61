"""What a hostile scenario file costs the server: CPU time of ``Scenario.from_toml`` (pre-scan, parse, checks).

    python benchmarks/scenario_files.py            # one table: each file, its size, CPU ms, what the app answered

The files: the issue's (a long dotted key, a deep dotted table header with many keys under it, 80 KB of dotted keys,
huge whole numbers), the costliest shapes that pass every limit of ``dppca_core.scenario.prescan`` (at the token,
key, table and size limits), and the largest scenario the app writes. CPU time is the process's (``process_time``),
the median of 3 runs after one warm-up; the machine is shared, so read the figures as orders of magnitude.
:func:`hostile_files` is also the soak's source of hostile scenario files (benchmarks/load.py).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def hostile_files() -> dict:
    """{name: bytes} of scenario files built to cost the server the most, refused or opened."""
    from dppca_core.scenario import FILE_FORMAT, MAX_FILE_BYTES

    head = f'format = "{FILE_FORMAT}"\nformat_version = 1\n'
    room = MAX_FILE_BYTES - 200
    files = {
        "long-dotted-key.toml": head + ".".join(["a"] * 8_000) + " = 1\n",
        "deep-header-many-keys.toml": head
        + "["
        + ".".join(["a"] * 5_000)
        + "]\n"
        + "".join(f"k{i}=1\n" for i in range(10_000)),
        "dotted-keys-80kb.toml": head + "".join(f"a{i}.b.c.d.e.f.g.h.i.j.k = 1\n" for i in range(3_200)),
        "huge-numbers.toml": head
        + "[data]\nn = 1"
        + "0" * 400
        + "\n[distributed]\ndsites = 0x"
        + "f" * 2_000
        + "\n[parameters.private_power]\niterations = 1"
        + "0" * 400
        + "\n",
        "token-limit-array.toml": head + "[data]\nn = [" + "1," * 29_990 + "1]\n",
        "key-limit.toml": head + "[other]\n" + "".join(f"k{i} = 1\n" for i in range(4_990)),
        "four-part-keys.toml": head + "".join(f"a{i}.b.c.d = 1\n" for i in range(4_990)),
        "table-limit.toml": head + "".join(f"[t{i}]\nk = 1\n" for i in range(199)),
        "escapes-600kb.toml": head + '[schema]\nlabel = "' + "\\u0041" * ((room - 100) // 6) + '"\n',
        "dates.toml": head + "[data]\nn = [" + "1979-05-27T07:32:00Z," * 19_990 + "1]\n",
    }
    return {name: text.encode() for name, text in files.items()}


def largest_scenario() -> bytes:
    """The largest scenario the app writes (tests/test_scenario_prescan.py builds it)."""
    from dppca_core.scenario import to_toml
    from tests.test_scenario_prescan import _largest_scenario

    return to_toml(_largest_scenario()).encode()


def measure(raw: bytes, repeats: int = 3) -> tuple[float, str]:
    """(median CPU seconds of Scenario.from_toml over ``repeats`` after a warm-up, what it answered)."""
    from dppca_core.scenario import Scenario

    def once():
        try:
            opened = Scenario.from_toml(raw)
            return f"opened, {len(opened.notices)} notices"
        except ValueError as exc:
            return "refused: " + str(exc)[:70]

    answer = once()
    seconds = []
    for _ in range(repeats):
        t0 = time.process_time()
        once()
        seconds.append(time.process_time() - t0)
    return statistics.median(seconds), answer


def main() -> None:
    files = {**hostile_files(), "largest-real-scenario.toml": largest_scenario()}
    print("| file | size (kB) | CPU (ms) | answer |\n|---|---:|---:|---|")
    for name, raw in files.items():
        seconds, answer = measure(raw)
        print(f"| {name} | {len(raw) / 1000:,.0f} | {1000 * seconds:.1f} | {answer} |")


if __name__ == "__main__":
    main()
