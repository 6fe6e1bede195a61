"""Public real tables the planner is checked on (tests/planning/test_planning_real.py, benchmarks/planner_calibration.py):
their numeric columns and the public bounds a user would declare for them (round numbers from what the columns
measure, not read off the cells). Sources and licences: README.md beside this file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Table:
    name: str
    file: str  # a CSV beside this module, or "sklearn:diabetes"
    columns: tuple
    bounds: tuple  # the public bound of each column (its largest plausible absolute value)
    what: str

    def rows(self) -> np.ndarray:
        """The table's numeric columns as floats, rows with a missing cell left out (the few there are)."""
        if self.file == "sklearn:diabetes":
            from sklearn.datasets import load_diabetes

            frame = pd.DataFrame(load_diabetes(scaled=False).data, columns=list(self.columns))
        else:
            frame = pd.read_csv(HERE / self.file)
        return frame[list(self.columns)].dropna().to_numpy(dtype=float)

    def scaled(self) -> np.ndarray:
        """The rows with each column divided by its public bound (the app's "scale by public bounds")."""
        return self.rows() / np.asarray(self.bounds, dtype=float)


TABLES = {
    t.name: t
    for t in (
        Table(
            "penguins",
            "penguins.csv",
            ("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"),
            (60.0, 25.0, 250.0, 6500.0),
            "Palmer penguins: 4 body measurements (mm, g) of 342 penguins",
        ),
        Table(
            "auto",
            "Auto.csv",
            ("mpg", "cylinders", "displacement", "horsepower", "weight", "acceleration"),
            (50.0, 8.0, 500.0, 250.0, 5500.0, 25.0),
            "Auto (ISLR): 6 measurements of 392 cars",
        ),
        Table(
            "diabetes",
            "sklearn:diabetes",
            ("age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"),
            (100.0, 2.0, 50.0, 150.0, 350.0, 300.0, 100.0, 10.0, 7.0, 150.0),
            "diabetes (scikit-learn, raw units): age, sex, BMI, blood pressure and six serum measurements of 442 "
            "patients",
        ),
        Table(
            "boston",
            "Boston.csv",
            (
                "crim",
                "zn",
                "indus",
                "chas",
                "nox",
                "rm",
                "age",
                "dis",
                "rad",
                "tax",
                "ptratio",
                "black",
                "lstat",
                "medv",
            ),
            (100.0, 100.0, 30.0, 1.0, 1.0, 10.0, 100.0, 15.0, 25.0, 800.0, 25.0, 400.0, 40.0, 50.0),
            "Boston housing (MASS): 14 measurements of 506 suburbs",
        ),
        Table(
            "college",
            "College.csv",
            (
                "Apps",
                "Accept",
                "Enroll",
                "Top10perc",
                "Top25perc",
                "F.Undergrad",
                "P.Undergrad",
                "Outstate",
                "Room.Board",
                "Books",
                "Personal",
                "PhD",
                "Terminal",
                "S.F.Ratio",
                "perc.alumni",
                "Expend",
                "Grad.Rate",
            ),
            (
                50000.0,
                30000.0,
                10000.0,
                100.0,
                100.0,
                40000.0,
                25000.0,
                25000.0,
                10000.0,
                3000.0,
                7000.0,
                100.0,
                100.0,
                40.0,
                100.0,
                60000.0,
                120.0,
            ),
            "College (ISLR): 17 statistics of 777 US colleges",
        ),
        Table(
            "storms",
            "storms.csv.gz",
            ("lat", "long", "wind", "pressure"),
            (90.0, 180.0, 200.0, 1100.0),
            "storms (dplyr, NOAA): position, wind and pressure at 20,778 observations of Atlantic storms",
        ),
    )
}
