"""Reproductions of the seed papers' synthetic experiments, with what each paper reports beside our numbers.

One function per reproduction (:func:`wang_xu_low_dim`, :func:`wang_xu_sparse`, :func:`ge_convergence`,
:func:`ge_comparison`, :func:`liu_example_41`, :func:`liu_spiked`, :func:`imtiaz_2016_sn`, :func:`cape_pca`,
:func:`cape_agn`) re-runs the paper's synthetic setting with our mechanisms and returns a :class:`Reproduction`:
a tidy DataFrame (one row per panel, series, x value and repetition, with the algorithm that produced it), a
plotly figure with the mean and the 95% band over repetitions, three texts (what the paper reports: its
qualitative claim and any numbers it prints; what we find: numbers read from the frame; where ours differs and
why), which algorithm produced each point (a fallback, the paper's own noise level, a reference line), and the
paper's claims one by one: reproduced, not reproduced or reversed, and why.

The errors are diagnostics against the planted truth of the synthetic law: they are not private releases.

The package: :mod:`.core` (the data model, the registries and the run API), :mod:`.kit` (what the paper modules
share: seeds, rows, runs, summaries and number formats), one module per paper (:mod:`.wang_xu`, :mod:`.ge`,
:mod:`.liu`, :mod:`.imtiaz_2016`, :mod:`.imtiaz_2018`, :mod:`.biswas`, :mod:`.dong_liang_yi`,
:mod:`.dungler_sanyal`: each declares its paper, and for each reproduction what the paper claims, its settings,
the steps that run it and the claims it judges), :mod:`.catalog` (the papers' order, where they are registered),
:mod:`.output` (figures, HTML, PNG and markdown) and :mod:`.cli` (the command line,
``python -m dppca_core.reproduce --all --out DIR``; see there for its options and files). The grids, the
tasks and their seeds are described in :mod:`.core`.
"""

from .catalog import REPRODUCTIONS
from .biswas import coinpress_covariance
from .cli import main
from .dong_liang_yi import dly_dimension, dly_skewed
from .dungler_sanyal import topk_low_d, topk_spiked
from .core import (
    GRIDS,
    MAX_REPS,
    NON_PRIVATE,
    NOT_REPRODUCED,
    NOT_RUN,
    PAPERS,
    PAPERS_DOC,
    RANDOM,
    REPRODUCED,
    REVERSED,
    SPECS,
    Claim,
    Panel,
    Paper,
    Reproduction,
    Spec,
    assemble,
    config,
    plan,
    reproduce,
    reproduce_paper,
    run_task,
    summarize,
)
from .ge import ge_comparison, ge_convergence
from .imtiaz_2016 import imtiaz_2016_sn
from .imtiaz_2018 import cape_agn, cape_pca
from .liu import liu_example_41, liu_spiked
from .output import (
    claims_markdown,
    figure,
    load,
    papers_claims,
    refs_markdown,
    render_png,
    to_markdown,
    update_docs,
    write,
)
from .wang_xu import wang_xu_low_dim, wang_xu_sparse

__all__ = [
    "coinpress_covariance",
    "dly_dimension",
    "dly_skewed",
    "topk_low_d",
    "topk_spiked",
    "GRIDS",
    "MAX_REPS",
    "NON_PRIVATE",
    "NOT_REPRODUCED",
    "NOT_RUN",
    "PAPERS",
    "PAPERS_DOC",
    "RANDOM",
    "REPRODUCED",
    "REPRODUCTIONS",
    "REVERSED",
    "SPECS",
    "Claim",
    "Panel",
    "Paper",
    "Reproduction",
    "Spec",
    "assemble",
    "cape_agn",
    "cape_pca",
    "claims_markdown",
    "config",
    "figure",
    "ge_comparison",
    "ge_convergence",
    "imtiaz_2016_sn",
    "liu_example_41",
    "liu_spiked",
    "load",
    "main",
    "papers_claims",
    "plan",
    "refs_markdown",
    "render_png",
    "reproduce",
    "reproduce_paper",
    "run_task",
    "summarize",
    "to_markdown",
    "update_docs",
    "wang_xu_low_dim",
    "wang_xu_sparse",
    "write",
]
