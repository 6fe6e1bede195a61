"""What a hostile scenario file costs the server: CPU time of ``Scenario.from_toml`` (pre-scan, parse, checks).

    python benchmarks/scenario_files.py              # one table: each file, its size, CPU ms, what the app answered
    python benchmarks/scenario_files.py --fuzz 6460  # and 6,460 mutated scenario files: answers, slowest CPU

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


QUADRATIC_FILES = {
    "long-dotted-key.toml": "one long dotted key (16 KB)",
    "deep-header-many-keys.toml": "a deep dotted table header with many keys (99 KB)",
    "dotted-keys-80kb.toml": "80 KB of dotted keys",
}


def hostile_files() -> dict:
    """{name: bytes} of scenario files built to cost the server the most, refused or opened."""
    from dppca_core.scenario import FILE_FORMAT, MAX_FILE_BYTES
    from tests.support.scenarios import QUADRATIC

    head = f'format = "{FILE_FORMAT}"\nformat_version = 1\n'
    room = MAX_FILE_BYTES - 200
    files = {
        # the files (tests/support/scenarios.py), under names a folder of files can hold
        **{name: QUADRATIC[key] for name, key in QUADRATIC_FILES.items()},
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
    """The largest scenario the app writes (tests/support/scenarios.py builds it)."""
    from dppca_core.scenario import to_toml
    from tests.support.scenarios import largest_scenario

    return to_toml(largest_scenario()).encode()


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


#: what a mutation puts in a file: values of every type, huge numbers, long texts, deep structures, TOML's marks
_INSERTS = [
    "1" + "0" * 400,
    "0x" + "f" * 3_000,
    "-0o" + "7" * 2_000,
    "9" * 5_000,
    "nan",
    "-inf",
    "1e999",
    '"' + "x" * 20_000 + '"',
    "'''" + "\n" * 50 + "'''",
    "[" * 40 + "]" * 40,
    "{a = {b = {c = {d = 1}}}}",
    "1979-05-27T07:32:00Z",
    "[1, 'a', 2.5, true]",
    "true",
    ".".join(["k"] * 50) + " = 1",
    "[" + ".".join(["t"] * 50) + "]",
    "[[parameters]]",
    "=",
    "\\u0000",
    '"\\ud800"',
]


def mutants(count: int, seed: int = 0) -> list:
    """``count`` scenario files mutated from real ones (the defaults, an upload's with a few settings changed): a
    value replaced, a mark inserted, a line repeated or removed, bytes flipped; one to three mutations each."""
    import random

    from dppca_core.scenario import DEFAULTS, to_toml

    rng = random.Random(seed)
    bases = [to_toml(DEFAULTS), to_toml({**DEFAULTS, "eps": 0.5, "src": "upload", "cols": '["a","b"]'})]
    out = []
    for _ in range(count):
        lines = rng.choice(bases).splitlines()
        for _ in range(rng.randint(1, 3)):
            j, move = rng.randrange(len(lines)), rng.random()
            if move < 0.6 and "=" in lines[j]:
                lines[j] = lines[j].split("=", 1)[0] + "= " + rng.choice(_INSERTS)
            elif move < 0.8:
                lines.insert(j, rng.choice(_INSERTS))
            elif move < 0.9:
                lines[j : j + 1] = [lines[j]] * rng.randint(0, 200)
            else:
                text = bytearray(lines[j].encode())
                for _ in range(rng.randint(1, 4)):
                    if text:
                        text[rng.randrange(len(text))] = rng.randrange(256)
                lines[j] = text.decode("latin-1")
        out.append(("\n".join(lines) + "\n").encode())
    return out


def fuzz(count: int) -> None:
    """Open ``count`` mutated files: how many opened, were refused in words, escaped as another exception; the
    slowest in CPU time."""
    from dppca_core.scenario import Scenario

    answers = {"opened": 0, "refused": 0, "escaped": 0}
    slowest = 0.0
    for raw in mutants(count):
        t0 = time.process_time()
        try:
            Scenario.from_toml(raw)
            answers["opened"] += 1
        except ValueError:
            answers["refused"] += 1
        except Exception:  # noqa: BLE001 - what the benchmark counts
            answers["escaped"] += 1
        slowest = max(slowest, time.process_time() - t0)
    print(
        f"\n{count:,} mutated scenario files: {answers['opened']:,} opened (with notices), {answers['refused']:,} "
        f"refused in words, {answers['escaped']} escaped as another exception; slowest {1000 * slowest:.1f} ms of CPU."
    )


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fuzz", type=int, default=0, help="also open this many mutated scenario files")
    args = parser.parse_args()
    files = {**hostile_files(), "largest-real-scenario.toml": largest_scenario()}
    print("| file | size (kB) | CPU (ms) | answer |\n|---|---:|---:|---|")
    for name, raw in files.items():
        seconds, answer = measure(raw)
        print(f"| {name} | {len(raw) / 1000:,.0f} | {1000 * seconds:.1f} | {answer} |")
    if args.fuzz:
        fuzz(args.fuzz)


if __name__ == "__main__":
    main()
