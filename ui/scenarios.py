"""Ready scenarios for the Home gallery: each is a complete set of scenario fields plus a target page."""
from __future__ import annotations

import dppca_core as dc

GALLERY = [
    {
        "title": "The epsilon dial",
        "blurb": "Move ε from 0.01 to 20 and watch two central mechanisms go from noise to the exact answer.",
        "page": "explore",
        "fields": {"mechs": "analyze_gauss,private_power", "eps": 1.0, "k": 2},
    },
    {
        "title": "Sparse genes: 200 features, signal on 10",
        "blurb": "10,000 people, 200 features, the signal on 10 of them: DPS-PCA finds which ones under DP, "
                 "MOD-SuLQ cannot (Ge et al.'s comparison).",
        "page": "explore",
        "fields": {"n": 10000, "d": 200, "rank": 2, "spike": 30.0, "sparse": 10, "k": 2, "s": 10, "eps": 4.0,
                   "mechs": "dps_pca,mod_sulq", "dps_pca.sparsity": 20, "dps_pca.sites": 1,
                   "dps_pca.init": "noisy_diagonal", "reps": 5, "view": "support"},
    },
    {
        "title": "Hospitals pooling data",
        "blurb": "Five sites with 1,000 patients each: pool with correlated noise (CAPE), or go it alone?",
        "page": "explore",
        "fields": {"n": 5000, "mechs": "cape_pca,dist_conventional,dist_local", "eps": 1.0, "k": 2,
                   "cape_pca.sites": 5, "dist_conventional.sites": 5, "dist_local.sites": 5},
    },
    {
        "title": "Can you trust a privacy claim?",
        "blurb": "A published mechanism whose guarantee was retracted looks great on utility. Utility is not privacy.",
        "page": "explore",
        "fields": {"mechs": "wishart_sn,analyze_gauss", "eps": 0.5, "k": 2},
    },
    {
        "title": "Local vs central trust",
        "blurb": "Noise on each person's device (local DP) against one trusted curator, at the same ε.",
        "page": "tradeoffs",
        "fields": {"n": 5000, "mechs": "ldp_gaussian,analyze_gauss", "k": 2, "sweep": "eps"},
    },
]


def available(entry: dict) -> bool:
    """A gallery entry is shown only if every mechanism it uses is registered."""
    names = set(dc.mechanism_names("pca"))
    return all(m in names for m in entry["fields"].get("mechs", "").split(",") if m)
