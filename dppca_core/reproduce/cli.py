"""The command line of the reproductions (:func:`main`)::

    python -m dppca_core.reproduce --all --out DIR [--grid default|full] [--reps R] [--seed S]
                                   [--combined] [--png] [--docs DOCS]

writes ``<reproduction>.csv`` and a standalone ``<reproduction>.html`` (plotly embedded once per page) for each
reproduction and an ``index.html`` linking them; ``--combined`` writes every figure into ``index.html`` instead
(plotly embedded once in all), and ``--png`` also renders each figure to ``<reproduction>.png`` with a headless
Chromium (Playwright). Reproductions already in DIR from an earlier run with the same settings are kept in
its index, its timings and the docs, so one reproduction can be re-run on its own. ``manifest.json`` records the settings and times of each run (the Reproduce page serves
these files when its settings match, see :func:`.output.load`); ``--docs`` also rewrites the generated parts of
docs/reproduce.md and docs/papers.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from .catalog import REPRODUCTIONS
from .core import GRIDS, MAX_REPS, PAPERS, SPECS, reproduce
from .output import load, render_png, update_docs, write


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.all:
        keys = list(REPRODUCTIONS)
    elif args.paper:
        keys = [k for p in args.paper for k in PAPERS[p].reproductions]
    else:
        keys = list(dict.fromkeys(args.only))
    try:
        results, timings = _run(keys, args)
        # the reproductions already in DIR (run earlier with the same settings) stay in its index, timings and docs
        done = {rep.key for rep in results}
        kept = [
            rep
            for key in REPRODUCTIONS
            if key not in done
            for rep in [load(key, args.out, args.grid, args.reps, args.seed)]
            if rep is not None
        ]
        every = sorted(results + kept, key=lambda rep: REPRODUCTIONS.index(rep.key))
        paths = write(every, args.out, combined=args.combined)
        if args.png:
            paths += render_png(results, args.out)
        if args.docs:
            paths += update_docs(every, args.docs)
    except ValueError as exc:
        parser.error(str(exc))
    table = pd.DataFrame(timings)
    old_path = Path(args.out) / "timings.csv"
    if kept and old_path.exists():
        old = pd.read_csv(old_path)
        table = pd.concat([old[old.reproduction.isin([rep.key for rep in kept])], table])
        table = table.sort_values("reproduction", key=lambda col: col.map(REPRODUCTIONS.index))
    table.to_csv(old_path, index=False)
    by_paper = table.groupby("paper", sort=False)[["seconds", "cpu_seconds"]].sum()
    print("\n".join(f"{p}: {row.seconds:.1f} s wall, {row.cpu_seconds:.1f} s CPU" for p, row in by_paper.iterrows()))
    print(f"wrote {len(paths) + 1} files to {args.out}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dppca_core.reproduce",
        description="Re-run the seed papers' synthetic experiments; write CSV and HTML (and PNG) per reproduction.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--all", action="store_true", help="every reproduction of every paper")
    what.add_argument("--paper", action="append", choices=list(PAPERS), help="one paper's reproductions (repeatable)")
    what.add_argument("--only", action="append", choices=list(SPECS), help="one reproduction (repeatable)")
    parser.add_argument("--out", required=True, help="output folder (created if missing)")
    parser.add_argument(
        "--grid",
        choices=GRIDS,
        default="default",
        help="'default': scaled down (under a minute per paper on 2 cores); 'full': the paper's grid",
    )
    parser.add_argument("--reps", type=int, default=None, help=f"repetitions (1-{MAX_REPS}); default: the grid's own")
    parser.add_argument("--seed", type=int, default=0, help="seed of all data and noise (default 0)")
    parser.add_argument(
        "--combined",
        action="store_true",
        help="all figures in one index.html (plotly embedded once) instead of one page each",
    )
    parser.add_argument("--png", action="store_true", help="also render <key>.png (Playwright + /usr/bin/chromium)")
    parser.add_argument(
        "--docs",
        default=None,
        help="also rewrite the generated parts of DOCS/reproduce.md and DOCS/papers.md (the "
        "reproductions' sections and the papers' claims) from this run",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def _run(keys: list, args) -> tuple[list, list]:
    """(the reproductions of ``keys``, run in order, and one timing row each), with progress lines unless quiet."""
    results, timings = [], []
    for key in keys:
        log = None if args.quiet else (lambda f, t: print(f"  {t} ({100 * f:.0f}%)", file=sys.stderr, flush=True))
        if not args.quiet:
            print(f"{key} ({args.grid} grid)…", file=sys.stderr, flush=True)
        rep = reproduce(key, args.grid, args.reps, args.seed, progress=log)
        results.append(rep)
        timings.append(
            {
                "paper": rep.paper,
                "reproduction": key,
                "grid": args.grid,
                "reps": rep.reps,
                "seconds": round(rep.seconds, 2),
                "cpu_seconds": round(rep.cpu_seconds, 2),
            }
        )
        if not args.quiet:
            print(f"{key}: {rep.seconds:.1f} s wall, {rep.cpu_seconds:.1f} s CPU", file=sys.stderr, flush=True)
    return results, timings
