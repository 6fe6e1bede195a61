"""Where each mechanism of 2020-2025 wins: median error over repetitions at matched (epsilon, delta), on the settings
where each paper claims an advantage and on settings where it should not win.

    python benchmarks/frontier.py                          # 30 repetitions per cell; prints a markdown table
    python benchmarks/frontier.py --reps 5 --only loose    # a quick look at the settings whose name has "loose"
    python benchmarks/frontier.py --out frontier.md        # also write the table (and a CSV beside it)
    python benchmarks/frontier.py --docs docs/benchmarks.md  # put the table in its section of docs/benchmarks.md

``--docs`` replaces only the text between the section's two markers (appending the section the first time); the rest
of the file (the hour-long run of benchmarks/run_benchmarks.py) is left as it is.

Every mechanism runs at the same (epsilon, delta) = (1, 1e-5) on the same rows (one draw of the data per setting,
a fresh seed per repetition). Two errors, each against the planted truth of the law: the subspace error
||sin Theta||_F of the top-k components (PCA), and, for the covariance settings, the Frobenius error of the covariance
estimate ||V diag(lambda) V^T / n - Sigma||_F from a release with k = d (Sigma = X^T X / n of the rows the mechanisms
see, after clipping). dp_pca estimates the top eigenvector only: it runs at k = 1 settings. The time column is the
median CPU time of one release from the raw rows (clipping and the Gram matrix included, as in section 1 of
docs/benchmarks.md) divided by that of the floor np.linalg.eigh(X.T @ X) on the same rows, each repetition of a
mechanism timed just after one of the floor, so that both run under the same load.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dppca_core as dc  # noqa: E402
from dppca_core import metrics  # noqa: E402
from dppca_core.data.prepare import prepare  # noqa: E402

EPSILON, DELTA = 1.0, 1e-5
#: the markers around this table's section of docs/benchmarks.md (``--docs`` rewrites what is between them)
BEGIN, END = "<!-- frontier table: begin -->", "<!-- frontier table: end -->"
SECTION_TITLE = "## 9. Where each mechanism of 2020-2025 wins: error at matched (ε, δ)"
MECHANISMS = (
    "analyze_gauss",
    "dp_pca",
    "coinpress",
    "trace_sensitive",
    "topk_dp_pca",
    "tail_sensitive",
    "spatial_sign",
)
#: further columns: a registered mechanism run with parameters of its own (column -> mechanism, parameters, title)
VARIANTS = {
    "trace_sensitive/auto": ("trace_sensitive", {"route": "auto"}, "Trace-sensitive, route auto"),
    "tail_sensitive/auto": ("tail_sensitive", {"route": "auto"}, "Tail-sensitive, route auto (combined)"),
}
COLUMNS = MECHANISMS + tuple(VARIANTS)


def column_title(column: str) -> str:
    """How the table names a column: the mechanism's short title, or the variant's own title."""
    return VARIANTS[column][2] if column in VARIANTS else dc.get_mechanism(column).short_title


@dataclass(frozen=True)
class Setting:
    """One cell of the table: how the rows are drawn, k, the error measured, who claims an advantage here."""

    name: str
    rows: callable
    k: int
    metric: str  # "subspace" or "covariance"
    claim: str
    expect: str  # the mechanism the setting favours, or "" where none of the new ones should win
    params: dict = field(default_factory=dict)


def spiked(n, d, spikes, noise, scale, seed=0):
    """Gaussian rows U diag(spikes) z + noise g (U a random orthonormal d x k), scaled so that a typical row has norm
    ``scale`` (the clipping radius is 1), clipped; returns (rows, planted U)."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((d, len(spikes))))
    X = rng.standard_normal((n, len(spikes))) * np.asarray(spikes) @ U.T + noise * rng.standard_normal((n, d))
    X *= scale / np.sqrt(np.sum(np.square(spikes)) + noise**2 * d)
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None], U


def skewed(n, d, seed=0):
    """Rows with variances ~ 1 / i^2 in a random basis, clipped to norm 1 (a small trace, a fast-falling spectrum)."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    X = rng.standard_normal((n, d)) / np.arange(1, d + 1) @ Q.T
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None], Q[:, :2]


def on_sphere(n, d, seed=0):
    """The authors' generator at trace 1 (Dong, Liang & Yi): Gaussian rows mixed by a U(0, 1) matrix, centred, every
    row scaled to norm 1."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) @ rng.uniform(0.0, 1.0, (d, d))
    X -= X.mean(axis=0)
    X /= np.linalg.norm(X, axis=1)[:, None]
    return X, np.linalg.eigh(X.T @ X)[1][:, ::-1][:, :2]


def zipf_norms(n, d, buckets, seed=0):
    """The authors' skewed generator (Dong, Liang & Yi): rows of ``on_sphere``, then rescaled to the norms 2^(1-N), ...,
    1/2, 1 (N = ``buckets``) with Zipf(3) frequencies, most rows at the shortest norm (N = 1: every row at the radius)."""
    X, _ = on_sphere(n, d, seed)
    weights = 1.0 / np.arange(1, buckets + 1) ** 3.0
    edges = np.concatenate([[0], np.floor(n * np.cumsum(weights / weights.sum())[:-1]).astype(int), [n]])
    norms = np.repeat(2.0 ** (np.arange(buckets) + 1 - buckets), np.diff(edges))
    X = X * norms[:, None]
    return X, np.linalg.eigh(X.T @ X)[1][:, ::-1][:, :2]


def heavy_tailed(n, d, spikes=(4.0, 3.0), noise=0.3, df=2, outliers=0.0, seed=0):
    """Rows of a spiked elliptical law, U diag(spikes) z + noise g divided by sqrt(chi2_df / df) (multivariate t with
    ``df`` degrees of freedom; df = 0: Gaussian), unclipped, scaled so that the clipping radius 1 is ten times the
    law's median row norm: a guess of R from the law (the median of a public draw of 100,000 rows), not from the rows.
    With ``outliers``, that share of the rows (in random positions) is replaced by gross outliers at 100 times the
    median norm, around one direction orthogonal to the spikes. Returns (rows, planted U)."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((d, len(spikes))))

    def draw(m, gen):
        rows = gen.standard_normal((m, len(spikes))) * np.asarray(spikes) @ U.T + noise * gen.standard_normal((m, d))
        return rows / np.sqrt(gen.chisquare(df, m) / df)[:, None] if df else rows

    X = draw(n, rng)
    median = float(np.median(np.linalg.norm(draw(100_000, np.random.default_rng([seed, 1])), axis=1)))
    if outliers:
        away = rng.standard_normal(d)
        away -= U @ (U.T @ away)
        at = rng.choice(n, int(round(outliers * n)), replace=False)
        X[at] = 100.0 * median * (away / np.linalg.norm(away) + 0.1 * rng.standard_normal((len(at), d)))
    return X / (10.0 * median), U


def example_41(n, d, sigma, seed=0):
    """Liu et al.'s Example 4.1 (x = +-v + N(0, sigma^2 I), scaled and clipped): the gradients x x^T w barely vary when
    sigma is small, where DP-PCA's noise is meant to shrink with them."""
    law = dc.data.datasets.liu_example_41(n=n, d=d, sigma=sigma, seed=seed)
    return law.X, law.components


SETTINGS = (
    Setting(
        "loose radius, k = 1 (rows of norm ~0.1 R)",
        lambda: spiked(20000, 10, (4.0, 3.0), 0.3, 0.1),
        1,
        "subspace",
        "CoinPress: needs only a loose bound on the spread",
        "coinpress",
    ),
    Setting(
        "loose radius, k = 2 (rows of norm ~0.1 R)",
        lambda: spiked(20000, 10, (4.0, 3.0), 0.3, 0.1),
        2,
        "subspace",
        "CoinPress: needs only a loose bound on the spread",
        "coinpress",
    ),
    Setting(
        "very loose radius, k = 2 (rows of norm ~0.01 R)",
        lambda: spiked(20000, 10, (4.0, 3.0), 0.3, 0.01),
        2,
        "subspace",
        "CoinPress (more steps help here: iterations = 6)",
        "coinpress",
        {"coinpress": {"iterations": 6}},
    ),
    Setting(
        "radius fits, k = 2 (rows of norm ~0.5 R)",
        lambda: spiked(20000, 10, (4.0, 3.0), 0.3, 0.5),
        2,
        "subspace",
        "none: Analyze Gauss's regime",
        "",
    ),
    Setting(
        "rows on the sphere, k = 2 (trace 1, d = 50, n = 5,000)",
        lambda: on_sphere(5000, 50),
        2,
        "subspace",
        "none: every row at the radius",
        "",
    ),
    Setting(
        "skewed spectrum, d = 200 against n = 2,000: covariance",
        lambda: skewed(2000, 200),
        200,
        "covariance",
        "trace-sensitive: d large against n, small trace",
        "trace_sensitive",
    ),
    Setting(
        "trace 1, d = 400 against n = 1,000: covariance",
        lambda: on_sphere(1000, 400),
        400,
        "covariance",
        "trace-sensitive: d > n^(2/3) at trace 1",
        "trace_sensitive",
    ),
    Setting(
        "trace 1, d = 20 against n = 20,000: covariance",
        lambda: on_sphere(20000, 20),
        20,
        "covariance",
        "none: d < n^(2/3), the Gaussian mechanism's regime",
        "",
    ),
    Setting(
        "skewed spectrum, d = 200 against n = 2,000: subspace k = 2",
        lambda: skewed(2000, 200),
        2,
        "subspace",
        "none for the subspace (trace-sensitive's vectors get half the budget)",
        "",
    ),
    Setting(
        "skewed norms (Zipf, 8 norm buckets 1/128-1), d = 100, n = 10,000: covariance",
        lambda: zipf_norms(10000, 100, 8),
        100,
        "covariance",
        "tail-sensitive: most rows far below the radius",
        "tail_sensitive",
    ),
    Setting(
        "skewed norms (Zipf, 8 norm buckets 1/128-1), d = 100, n = 10,000: subspace k = 1",
        lambda: zipf_norms(10000, 100, 8),
        1,
        "subspace",
        "tail-sensitive: most rows far below the radius (its noise scales with tau^2)",
        "tail_sensitive",
    ),
    Setting(
        "norms at the radius (Zipf generator, 1 bucket: trace 1), d = 100, n = 10,000: covariance",
        lambda: zipf_norms(10000, 100, 1),
        100,
        "covariance",
        "none for tail-sensitive: tau stays 1 and it spends 1/4 of the budget on the radius and the trace",
        "",
    ),
    Setting(
        "k = 2, little data noise, n = 200,000, d = 20",
        lambda: spiked(200000, 20, (1.0, 0.7), 0.02, 0.5),
        2,
        "subspace",
        "top-k DP-PCA: noise adapted to the data's own spread",
        "topk_dp_pca",
    ),
    Setting(
        "k = 2, n near d (n = 2,000, d = 50), little data noise",
        lambda: spiked(2000, 50, (1.0, 0.7), 0.02, 0.5),
        2,
        "subspace",
        "top-k DP-PCA: near-optimal at n = O~(d)",
        "topk_dp_pca",
    ),
    Setting(
        "heavy tails: multivariate t (2 d.o.f.), k = 2, n = 5,000, d = 20, R guessed at 10x the median row norm",
        lambda: heavy_tailed(5000, 20, df=2),
        2,
        "subspace",
        "spatial-sign PCA: every row weighs one unit, no radius to guess",
        "spatial_sign",
    ),
    Setting(
        "5% gross outliers (Gaussian rows, outliers at 100x the median norm), k = 2, n = 5,000, d = 20, R guessed "
        "at 10x the median row norm",
        lambda: heavy_tailed(5000, 20, df=0, outliers=0.05),
        2,
        "subspace",
        "spatial-sign PCA: an outlier weighs one unit, however far",
        "spatial_sign",
    ),
    Setting(
        "Liu et al.'s Example 4.1, k = 1, sigma = 0.001, n = 200,000, d = 5",
        lambda: example_41(200000, 5, 0.001),
        1,
        "subspace",
        "DP-PCA: noise adapted to the gradients' spread (top-k DP-PCA equals it at k = 1)",
        "dp_pca",
        {"dp_pca": {"K": 1.63, "a": 0.5}, "topk_dp_pca": {"K": 1.63, "a": 0.5}},
    ),
)


def floor_seconds(X: np.ndarray) -> float:
    """CPU time of the floor, eigh(X^T X), once."""
    start = time.process_time()
    np.linalg.eigh(X.T @ X)
    return time.process_time() - start


def error(setting: Setting, release, U: np.ndarray, data) -> float:
    if setting.metric == "covariance":
        n = data.n
        estimate = (release.components * np.clip(release.eigenvalues, 0.0, n)) @ release.components.T / n
        return float(np.linalg.norm(estimate - data.gram / n))
    return float(metrics.subspace_distance(release.components, U[:, : setting.k]))


def run_setting(setting: Setting, reps: int) -> list[dict]:
    X, U = setting.rows()
    data = prepare(X)  # the rows the error is measured against (Sigma = X^T X / n)
    rows = []
    for name in COLUMNS:
        mechanism, variant, _ = VARIANTS.get(name, (name, {}, ""))
        spec = dc.get_mechanism(mechanism)
        if (spec.max_k is not None and setting.k > spec.max_k) or (
            setting.metric == "covariance" and not spec.releases_eigenvalues
        ):
            rows.append(
                {
                    "setting": setting.name,
                    "mechanism": name,
                    "median": None,
                    "why": "k = 1 only" if spec.max_k else "releases no eigenvalues",
                }
            )
            continue
        params = {**setting.params.get(mechanism, {}), **variant}
        errors, cpu, floor = [], [], []
        for rep in range(reps):
            floor.append(floor_seconds(X))
            start = time.process_time()  # from the raw rows: clipping and the Gram matrix are part of the release
            release = dc.run(mechanism, X, setting.k, EPSILON, DELTA, seed=np.random.SeedSequence([rep, 39]), **params)
            cpu.append(time.process_time() - start)
            errors.append(error(setting, release, U, data))
        rows.append(
            {
                "setting": setting.name,
                "mechanism": name,
                "median": statistics.median(errors),
                "q25": float(np.quantile(errors, 0.25)),
                "q75": float(np.quantile(errors, 0.75)),
                "time_ratio": statistics.median(cpu) / statistics.median(floor),
                "why": "",
            }
        )
    return rows


def outcome(mine: dict, others: list[dict]) -> str:
    """'wins' when the mechanism's median is below each other's and its quartiles lie clear of theirs (its upper
    quartile under their lower one), 'ties' when its median is lower but the quartiles overlap (the repetitions do
    not tell them apart), 'LOSES' otherwise."""
    if not all(mine["median"] < r["median"] for r in others):
        return "LOSES"
    return "wins" if all(mine["q75"] < r["q25"] for r in others) else "ties"


def markdown(results: dict, reps: int) -> str:
    head = (
        "| setting (claim) | error | "
        + " | ".join(column_title(m) for m in COLUMNS)
        + " | best | the claimed mechanism |\n|"
        + "---|" * (len(COLUMNS) + 4)
    )
    lines = []
    for setting in SETTINGS:
        if setting.name not in results:
            continue
        cells, best = [], None
        for row in results[setting.name]:
            if row["median"] is None:
                cells.append(f"— ({row['why']})")
                continue
            cells.append(f"{row['median']:.3g} [{row['q25']:.3g}–{row['q75']:.3g}] ({row['time_ratio']:.2g}×)")
            if best is None or row["median"] < best["median"]:
                best = row
        verdict = "—"
        if setting.expect:
            mine = next(r for r in results[setting.name] if r["mechanism"] == setting.expect)
            others = [
                r
                for r in results[setting.name]
                if r["mechanism"] in ("analyze_gauss", "dp_pca")
                and r["mechanism"] != setting.expect
                and r["median"] is not None
            ]
            verdict = f"{setting.expect} {outcome(mine, others)} against " + ", ".join(
                f"{r['mechanism']} ({r['median']:.3g})" for r in others
            )
        lines.append(
            f"| {setting.name} ({setting.claim}) | {setting.metric} | "
            + " | ".join(cells)
            + f" | {column_title(best['mechanism'])} | {verdict} |"
        )
    return (
        f"Median error over {reps} repetitions [quartiles] at (ε, δ) = ({EPSILON:g}, {DELTA:g}); in brackets after "
        "each, the median CPU time of a release over that of eigh(XᵀX) on the same rows. "
        "`python benchmarks/frontier.py`\n\n" + head + "\n" + "\n".join(lines) + "\n"
    )


def section(table: str, argv=None) -> str:
    """The section of docs/benchmarks.md: its title, how it was made, what the columns hold, the table, between the
    markers."""
    import datetime
    import platform

    command = "python benchmarks/frontier.py " + " ".join(sys.argv[1:] if argv is None else argv)
    return (
        f"{BEGIN}\n{SECTION_TITLE}\n\n<!-- generated by: {command.strip()} ({datetime.date.today()}, "
        f"{platform.machine()}, Python {platform.python_version()}) -->\n\n"
        "Each new mechanism against Analyze Gauss and our DP-PCA on the settings where its paper claims an "
        'advantage, and on settings where none of them should win (claim "none"). Errors against the planted '
        "truth: the subspace distance ||sin Θ||_F of the top-k components, or for the covariance settings the "
        "Frobenius error of the covariance estimate (a release with k = d). The last column compares the median "
        "of the mechanism the setting favours with those of Analyze Gauss and DP-PCA (DP-PCA runs at k = 1 "
        "only): wins where its median is lower than both and its quartiles lie clear of theirs, ties where the "
        "median is lower but the quartiles overlap, LOSES where it is not lower than both. The last two mechanism "
        "columns are trace_sensitive with route = auto (a private trace picks it or the Gaussian mechanism, "
        "docs/mechanisms.md#trace_sensitive) and tail_sensitive with route = auto (Dong, Liang & Yi's combined "
        "routine: a private trace and a private clipping radius pick the clipped trace-sensitive release or the "
        "Gaussian mechanism, docs/mechanisms.md#tail_sensitive). The settings and their generators are in "
        "benchmarks/frontier.py.\n\n" + table + f"{END}\n"
    )


def with_section(document: str, text: str) -> str:
    """``document`` with the text between :data:`BEGIN` and :data:`END` replaced by ``text`` (which holds both
    markers), or with ``text`` appended as a new section when the markers are not there yet."""
    start, stop = document.find(BEGIN), document.find(END)
    if start < 0 or stop < start:
        return document.rstrip("\n") + "\n\n" + text
    rest = document[stop + len(END) :]
    return document[:start] + text + (rest[1:] if rest.startswith("\n") else rest)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=30, help="repetitions per cell (default 30)")
    parser.add_argument("--only", default=None, help="only the settings whose name contains this")
    parser.add_argument("--out", type=Path, default=None, help="also write the table here (and a CSV beside it)")
    parser.add_argument(
        "--docs",
        type=Path,
        default=None,
        help="put the table in its section of this Markdown file (docs/benchmarks.md), between markers",
    )
    args = parser.parse_args(argv)
    results = {}
    for setting in SETTINGS:
        if args.only and args.only not in setting.name:
            continue
        results[setting.name] = run_setting(setting, args.reps)
        print(
            f"{setting.name}: "
            + ", ".join(
                f"{r['mechanism']} {r['median']:.3g}" if r["median"] is not None else f"{r['mechanism']} -"
                for r in results[setting.name]
            ),
            flush=True,
        )
    text = markdown(results, args.reps)
    print("\n" + text)
    if args.docs:
        args.docs.write_text(with_section(args.docs.read_text(), section(text, argv)))
    if args.out:
        args.out.write_text(text)
        import csv

        with open(args.out.with_suffix(".csv"), "w", newline="") as handle:
            writer = csv.DictWriter(
                handle, fieldnames=["setting", "mechanism", "median", "q25", "q75", "time_ratio", "why"]
            )
            writer.writeheader()
            for rows in results.values():
                writer.writerows(rows)


if __name__ == "__main__":
    main()
