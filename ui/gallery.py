"""Ready scenarios: the Home gallery's cards and the Lesson's steps, the same kind of object.

A :class:`Card` is a complete set of scenario fields (the defaults updated with ``fields``) plus the page that
opens it. A lesson step is a card with a figure (a key of :data:`ui.lesson.FIGURES`), a "try this" prompt and
optional teacher's notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import dppca_core as dc

from .controls import eps_grid


@dataclass(frozen=True)
class Card:
    title: str
    blurb: str
    page: str
    fields: dict = field(default_factory=dict)
    #: lesson steps only: what the step draws (ui.lesson.FIGURES), what to try on Explore, notes for the teacher
    figure: str = ""
    try_this: str = ""
    notes: str = ""


def available(entry: Card) -> bool:
    """A card is shown only if every mechanism it uses is registered."""
    names = set(dc.mechanism_names("pca"))
    return all(m in names for m in entry.fields.get("mechs", "").split(",") if m)


_DIAL = eps_grid()  # the dial's own range, so the card's words match it

GALLERY = [
    Card(
        "The epsilon dial",
        f"Move ε from {_DIAL[0]:g} to {_DIAL[-1]:g} and watch two central mechanisms go from noise to the exact "
        "answer.",
        "explore",
        {"mechs": "analyze_gauss,private_power", "eps": 1.0, "k": 2},
    ),
    Card(
        "Sparse genes: 200 features, signal on 10",
        "10,000 people, 200 features, the signal on 10 of them: DPS-PCA finds which ones under DP, MOD-SuLQ cannot "
        "(Ge et al.'s comparison).",
        "explore",
        {
            "n": 10000,
            "d": 200,
            "rank": 2,
            "spike": 30.0,
            "sparse": 10,
            "k": 2,
            "s": 10,
            "eps": 4.0,
            "mechs": "dps_pca,mod_sulq",
            "dps_pca.sparsity": 20,
            "dps_pca.sites": 1,
            "dps_pca.init": "noisy_diagonal",
            "reps": 5,
            "view": "support",
        },
    ),
    Card(
        "Hospitals pooling data",
        "Five sites with 1,000 patients each: pool with correlated noise (CAPE), or go it alone?",
        "explore",
        {
            "n": 5000,
            "mechs": "cape_pca,dist_conventional,dist_local",
            "eps": 1.0,
            "k": 2,
            "cape_pca.sites": 5,
            "dist_conventional.sites": 5,
            "dist_local.sites": 5,
        },
    ),
    Card(
        "Can you trust a privacy claim?",
        "A published mechanism whose guarantee was retracted looks great on utility. Utility is not privacy.",
        "explore",
        {"mechs": "wishart_sn,analyze_gauss", "eps": 0.5, "k": 2},
    ),
    Card(
        "Local vs central trust",
        "Noise on each person's device (local DP) against one trusted curator, at the same ε.",
        "tradeoffs",
        {"n": 5000, "mechs": "ldp_gaussian,analyze_gauss", "k": 2, "sweep": "eps"},
    ),
]

#: the Lesson: what DP-PCA is, in ten steps on live scenarios (each opens on its page: Explore, Trade-offs for the
#: planner, or Class, where the last step opens a room)
LESSON = [
    Card(
        "The exact PCA",
        "PCA finds the few directions along which the data vary most. In these 2,000 synthetic rows of 20 features, "
        "three directions stand out: each carries three to five times the variance of any other.",
        "explore",
        {"mechs": "non_private", "k": 3, "view": "scree"},
        figure="scree",
        try_this="On Explore, the exact PCA scores a subspace distance of 0: it is the reference every private "
        "answer is measured against.",
        notes="Ask the class what the tall bars mean before naming them. The exact PCA is computed from everyone's "
        "rows, so publishing it as is can leak information about individuals.",
    ),
    Card(
        "Adding noise: one release, many releases",
        "Analyze Gauss adds Gaussian noise to the covariance before the PCA. One release is one draw of that noise; "
        "the dots show 20 draws, so you see how far one release can land from the exact answer.",
        "explore",
        {"mechs": "analyze_gauss", "eps": 1.0, "reps": 20, "view": "spread"},
        figure="spread",
        try_this="Change the noise seed on Explore: the metric cards move, the spread stays the same.",
        notes="The spread is the honest answer to 'how good is a private PCA?': a single release is a lottery "
        "ticket from it.",
    ),
    Card(
        "ε moves the error",
        "ε is the privacy budget: smaller is more private and needs more noise. The error falls as ε grows; the "
        "band holds 95% of the releases.",
        "explore",
        {"mechs": "analyze_gauss,private_power", "sweep": "eps", "sreps": 5},
        figure="sweep_eps",
        try_this="On Explore, move the ε dial from 0.1 to 10 and watch the subspace distance.",
        notes="A good moment to say what ε is not: it is not a percentage, and ε = 10 is a weak promise.",
    ),
    Card(
        "n moves it too",
        "The noise protects one person, so its size does not grow with the data. The signal does: with more rows "
        "the same ε costs less accuracy.",
        "explore",
        {"mechs": "analyze_gauss", "sweep": "n", "sreps": 5},
        figure="sweep_n",
        try_this="On Explore, set n to 250 and then to 20,000 on the Data page, at the same ε.",
        notes="This is why DP works best on large datasets, and why small groups are hard to protect.",
    ),
    Card(
        "Clipping and the radius R",
        "Each row is clipped to norm R, so that one person can move the covariance by a bounded amount, and the "
        "noise grows with R². R = 1 bounds these rows: a looser R only adds noise (a tighter one would cut the rows "
        "and change the data the PCA sees).",
        "explore",
        {"mechs": "analyze_gauss", "reps": 10},
        figure="clip",
        try_this="On the Data page, change R and come back: the guarantee stays, the error moves. The library can "
        'also choose R privately from its own share of the budget (release_pca(data_norm="private")).',
        notes="R must not be read from the data without privacy: the Data page flags that choice as not private.",
    ),
    Card(
        "The price of the local model",
        "In the local model each person adds noise on their own device, so nobody has to be trusted. At the same ε "
        "and n the local release is much noisier than one curator's.",
        "explore",
        {"n": 5000, "mechs": "ldp_gaussian,analyze_gauss", "eps": 1.0, "reps": 10, "view": "spread"},
        figure="spread",
        try_this="On Explore, raise n: the local model needs many more people for the same accuracy.",
        notes="The same holds for sparsity: finding which features matter under DP costs budget too (the Home "
        "gallery's sparse genes card).",
    ),
    Card(
        "Composition: a complete release",
        "A complete release publishes more than the components: a private mean and the eigenvalues each take a "
        "share of the budget. Gaussian parts add up in μ² (not in ε), so their shares add up to 100%; the total "
        "(ε, δ) is computed exactly from them, and it is not the sum of the parts' ε.",
        "explore",
        {"mechs": "analyze_gauss", "center": "private", "bmean": 0.1, "beig": 0.1, "view": "scree"},
        figure="budget",
        try_this="Open the Budget split in the Explore sidebar and give the eigenvalues a larger share.",
        notes="Every published number spends budget: plan what to publish before you publish it.",
    ),
    Card(
        "What ε do I need?",
        "Turn the question round: say the error you accept and how often, and ask for the ε. The planner simulates "
        "fresh releases on a public stand-in for the data (here the law that made them), never on their rows. The "
        "star marks the smallest ε at which a mechanism meets a distance of 0.3 in 90% of releases.",
        "tradeoffs",
        {"mechs": "analyze_gauss,private_power", "ptarget": "subspace_distance", "pdist": 0.3, "pconf": 0.9},
        figure="plan",
        try_this="On Trade-offs, press Plan, then ask for 99% of releases, or a distance of 0.5, and plan again.",
        notes="The plan is only as good as its stand-in: with a table, state the spectrum you expect or spend a "
        "little ε on a private one. 'Use this plan' sets ε, the mechanism and the split in one click.",
    ),
    Card(
        "What ε means for one person",
        "An attacker who knows every row but yours asks whether you are in the data. The curve is the most they can "
        "come to believe after seeing one release, from what they believed before.",
        "explore",
        {"mechs": "analyze_gauss", "eps": 1.0, "view": "risk"},
        figure="risk",
        try_this="On Explore, open the Privacy risk view and move ε: at ε = 5 the attacker can become nearly sure.",
        notes="Translate for the room: a pure ε = 1 guarantee lets a 50% belief grow to at most e/(1+e), about 73%; "
        "the curve is the exact bound of this (ε, δ) release.",
    ),
    Card(
        "Play the attacker",
        "Now the class is the attacker: each student gets a release of their own, with or without Alice's row, and "
        "guesses which. The curve is the most any guesser can reach at this ε; the dot is a simulated room of 30 "
        "students who each pick the nearer of the two noiseless values.",
        "class",
        {"eps": 2.0},
        figure="class",
        try_this="Open a room on Class, show its QR code, and play five rounds at ε = 8, 2, 1, 0.5 and 0.1: the "
        "room's advantage falls toward a coin toss.",
        notes="Ten minutes: open the room (1 min), let everyone join by the QR code (2 min), play five rounds of about "
        "a minute each, reading the room's dot against the bound after each, then ask why no room can cross it. "
        "Alice sits at the clipping bound, the worst case the noise is made for.",
    ),
]
