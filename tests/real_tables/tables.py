"""Public real tables the planner is checked on (tests/planning/test_planning_real.py, benchmarks/planner_calibration.py):
their numeric columns and the public bounds a user would declare for them (round numbers from what the columns
measure, not read off the cells), declared in tables.toml: each column beside its bound. Sources and licences:
README.md beside this file."""

from __future__ import annotations

import tomllib
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


def _load(path: Path) -> dict:
    """The tables declared in ``path`` (tables.toml), each checked: a file that is here (or scikit-learn's diabetes),
    a description, and a finite positive bound for each of its columns."""
    tables = {}
    for name, spec in tomllib.loads(path.read_text()).items():
        assert set(spec) == {"file", "what", "bounds"}, (name, sorted(spec))
        assert spec["file"] == "sklearn:diabetes" or (HERE / spec["file"]).is_file(), (name, spec["file"])
        bounds = {column: float(bound) for column, bound in spec["bounds"].items()}
        assert bounds and all(np.isfinite(b) and b > 0 for b in bounds.values()), (name, bounds)
        tables[name] = Table(name, spec["file"], tuple(bounds), tuple(bounds.values()), spec["what"])
    return tables


TABLES = _load(HERE / "tables.toml")
