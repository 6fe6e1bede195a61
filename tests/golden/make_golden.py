"""Write tests/golden/golden.json: the hashes of every case in tests/golden/cases.py on this machine.

    OPENBLAS_NUM_THREADS=1 python -m tests.golden.make_golden            # from the repository root

Run it once before a change that must keep seeded output (then the test compares the new code with the old), and
again only when a change moves seeded output on purpose: say in the commit which cases moved and why the new
output is still exact. The test itself never writes this file.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import json  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

FIXTURE = Path(__file__).with_name("golden.json")


def main() -> None:
    from tests.golden.cases import all_cases, digest, fingerprint

    cases = all_cases()
    out = {"fingerprint": fingerprint(), "cases": {}}
    for name, case in cases.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["cases"][name] = digest(case())
        print(name, file=sys.stderr, flush=True)
    FIXTURE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} cases to {FIXTURE}", file=sys.stderr)


if __name__ == "__main__":
    main()
