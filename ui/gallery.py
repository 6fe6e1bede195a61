"""Ready scenarios: the Home gallery's cards and the Lesson's steps, the same kind of object.

A :class:`Card` is a complete set of scenario fields (the defaults updated with ``fields``) plus the page that
opens it. A lesson step is a card with a figure (a key of :data:`ui.lesson.FIGURES`), a "try this" prompt and
optional teacher's notes.

The gallery's cards are code (one names the ε dial's range). The Lesson is content a teacher reads, reorders or
translates without reading Python: it lives in ``lesson.toml`` beside this module, read once by :func:`load_lesson`,
which checks it (every key known, every page one that exists, every setting valid by the scenario's own checks) and
names the step and the key of anything it cannot use.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import dppca_core as dc
from dppca_core.scenario import checked, from_fields

from .controls import eps_grid
from .page_titles import PAGE_TITLES


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

#: the Lesson's steps, in their order (the file's header says how to edit it)
LESSON_FILE = Path(__file__).with_name("lesson.toml")
#: a step's keys in the file -> the :class:`Card` field each fills; every key but the optional ones is required
STEP_KEYS = {
    "title": "title",
    "text": "blurb",
    "page": "page",
    "figure": "figure",
    "try_this": "try_this",
    "notes": "notes",
    "scenario": "fields",
}
OPTIONAL_STEP_KEYS = ("notes", "scenario")


def _step(where: str, raw: dict) -> Card:
    """One ``[[step]]`` of the file as a :class:`Card`; ValueError naming ``where`` (the step) and the key."""
    if isinstance(raw.get("title"), str):
        where += f" ({raw['title']!r})"
    unknown = sorted(set(raw) - set(STEP_KEYS))
    missing = [key for key in STEP_KEYS if key not in raw and key not in OPTIONAL_STEP_KEYS]
    if unknown or missing:
        said = [f"unknown key {', '.join(unknown)}"] if unknown else []
        said += [f"missing key {', '.join(missing)}"] if missing else []
        raise ValueError(f"{where}: {'; '.join(said)} (a step's keys are {', '.join(STEP_KEYS)}).")
    texts = {key: raw.get(key, "") for key in STEP_KEYS if key != "scenario"}
    for key, text in texts.items():
        if not isinstance(text, str) or not (text.strip() or key in OPTIONAL_STEP_KEYS):
            raise ValueError(f"{where}: {key} must be text in quotes, not {text!r}.")
    if texts["page"] not in PAGE_TITLES:
        raise ValueError(f"{where}: page {texts['page']!r} is not a page of the app ({', '.join(PAGE_TITLES)}).")
    settings = raw.get("scenario", {})
    if not isinstance(settings, dict):
        raise ValueError(f"{where}: scenario must be a table of settings ([step.scenario]), not {settings!r}.")
    for key, value in settings.items():  # the one check of a setting from a link, a file, a card or a step
        try:
            checked(key, value)
        except ValueError as exc:
            raise ValueError(f"{where}: scenario setting {key} = {value!r} cannot be used: {exc}.") from None
    _, notices = from_fields(settings)  # and of the settings together (the size of the data)
    if notices:
        raise ValueError(f"{where}: scenario: " + "; ".join(notices) + ".")
    words = {STEP_KEYS[key]: " ".join(text.split()) for key, text in texts.items()}  # a line break is a space
    return Card(**words, fields=dict(settings))


def load_lesson(path: Path = LESSON_FILE) -> list[Card]:
    """The Lesson's steps from ``path`` (TOML: one ``[[step]]`` table each), checked; ValueError in words, naming
    the file, the step and the key, for anything that cannot be used."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path.name} is not a TOML file the lesson can read: {exc}.") from None
    steps = raw.get("step")
    if set(raw) != {"step"} or not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
        raise ValueError(f"{path.name} holds steps only, each a [[step]] table (found {', '.join(raw) or 'none'}).")
    return [_step(f"{path.name}, step {number}", each) for number, each in enumerate(steps, start=1)]


#: the Lesson: what DP-PCA is, in ten steps on live scenarios (each opens on its page: Explore, Trade-offs for the
#: planner, or Class, where the last step opens a room)
LESSON = load_lesson()
