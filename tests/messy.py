"""A messy table built by the tests themselves, like an analyst's own file (penguin-like measurements).

Missing cells in every numeric column (written as ``NA`` and as empty fields), a label (``species``), two text
columns (``island``, ``sex``, the latter with gaps), a row number (``id``), a ``year`` column, a constant column
(``station``), and measurements in units 1000x apart (mm against g).
"""

import numpy as np

MEASUREMENTS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
HEADER = ["id", "species", "island", *MEASUREMENTS, "sex", "year", "station"]
SPECIES = ("Adelie", "Gentoo", "Chinstrap")
#: per species: the mean of each measurement (mm, mm, mm, g): well separated groups
MEANS = {
    "Adelie": (38.8, 18.3, 190.0, 3700.0),
    "Gentoo": (47.5, 15.0, 217.0, 5080.0),
    "Chinstrap": (48.8, 18.4, 196.0, 3730.0),
}
SPREAD = (2.5, 1.1, 6.5, 420.0)
#: public, typical values of each measurement (a field guide's, not these data's): what a bad cell becomes
TYPICAL = {"bill_length_mm": 44.0, "bill_depth_mm": 17.0, "flipper_length_mm": 200.0, "body_mass_g": 4200.0}


def messy_rows(n: int = 344, seed: int = 0, missing: int = 2) -> list[list[str]]:
    """The table's rows as text cells; ``missing`` bad cells in each measurement column (alternately NA and empty),
    in different rows for different columns."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        species = SPECIES[i % 3]
        values = rng.normal(MEANS[species], SPREAD)
        cells = [f"{v:.1f}" if j < 3 else f"{v:.0f}" for j, v in enumerate(values)]
        rows.append(
            [
                str(i + 1),
                species,
                ("Biscoe", "Dream", "Torgersen")[i % 3 if i % 5 else 0],
                *cells,
                ("male", "female", "")[i % 3],
                str(2007 + i % 3),
                "7",
            ]
        )
    for j in range(len(MEASUREMENTS)):
        for m in range(missing):
            rows[(37 * j + 101 * m + 5) % n][3 + j] = "NA" if m % 2 == 0 else ""
    return rows


def to_csv(rows: list[list[str]], header: list[str] = HEADER) -> bytes:
    return ("\n".join(",".join(r) for r in [header, *rows]) + "\n").encode()


def messy_csv(n: int = 344, seed: int = 0, missing: int = 2) -> bytes:
    return to_csv(messy_rows(n, seed, missing))


def neighbour_csv(n: int = 344, seed: int = 0, missing: int = 2, row: int = 10, column: str = "body_mass_g") -> bytes:
    """The same table with one more missing cell: one person's row changed (a replace-one neighbour)."""
    rows = messy_rows(n, seed, missing)
    rows[row][HEADER.index(column)] = ""
    return to_csv(rows)
