"""Every cache of the app inside the budgets of ui/limits.py (issue 63.2): an entry budget and a time-to-live for each
``st.cache_data`` and ``st.cache_resource`` (read from the source, so a new cache without them fails here), a byte
budget for each result cached as copies, and for the caches that hold arrays as large as an upload a byte budget
enforced where they are called: one upload explored at 8 values of R once kept 8 privately scaled inputs
(382 MB each at the cell limit) with no expiry."""

import ast
import dataclasses
import gc
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHES = ("cache_data", "cache_resource")


def _sources():
    return [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py"))]


def _cache_kind(node) -> str | None:
    """ "cache_data" or "cache_resource" when ``node`` names ``st.cache_data`` / ``st.cache_resource``."""
    if isinstance(node, ast.Attribute) and node.attr in CACHES and isinstance(node.value, ast.Name):
        return node.attr if node.value.id in ("st", "streamlit") else None
    return None


def app_caches() -> list[dict]:
    """Every use of st.cache_data / st.cache_resource in app.py, ui/ and pages/: where, which function, which kind,
    and its keyword arguments (None for a bare decorator, which has none)."""
    found = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            decorators = node.decorator_list if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
            for dec in decorators:
                kind = _cache_kind(dec)
                if kind:  # bare @st.cache_data: no budget at all
                    found.append(
                        {
                            "where": f"{path.relative_to(ROOT)}:{dec.lineno}",
                            "function": node.name,
                            "kind": kind,
                            "keywords": {},
                        }
                    )
            if isinstance(node, ast.Call) and _cache_kind(node.func):
                function = next(
                    (
                        f.name
                        for f in ast.walk(tree)
                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in f.decorator_list
                    ),
                    None,
                )
                found.append(
                    {
                        "where": f"{path.relative_to(ROOT)}:{node.lineno}",
                        "function": function,
                        "kind": _cache_kind(node.func),
                        "keywords": {k.arg: k.value for k in node.keywords},
                    }
                )
    return found


def _given(keywords: dict, name: str) -> bool:
    value = keywords.get(name)
    return value is not None and not (isinstance(value, ast.Constant) and value.value is None)


def test_the_source_scan_finds_the_caches():
    caches = app_caches()
    assert len(caches) >= 20 and {c["kind"] for c in caches} == set(CACHES)
    assert any(c["function"] == "_prepare_scaled" for c in caches)


def test_every_cache_has_an_entry_budget_and_a_time_to_live():
    missing = [
        f"{c['where']} {c['function']}: {name}"
        for c in app_caches()
        for name in ("max_entries", "ttl")
        if not _given(c["keywords"], name)
    ]
    assert not missing, missing


def test_every_result_cached_as_copies_has_a_byte_budget():
    """st.cache_data counts the pickled bytes of each function's entries (max_size): each has one."""
    missing = [
        f"{c['where']} {c['function']}"
        for c in app_caches()
        if c["kind"] == "cache_data" and not _given(c["keywords"], "max_size")
    ]
    assert not missing, missing


def test_the_caches_declared_large_exist_and_take_their_entries_from_the_limits():
    from ui import limits

    caches = {c["function"]: c for c in app_caches()}
    for name, budget in limits.CACHE_BYTE_BUDGETS.items():
        assert name in caches, name
        entries = caches[name]["keywords"].get("max_entries")
        assert isinstance(entries, ast.Attribute) and entries.value.id == "limits", name
        assert budget >= getattr(limits, entries.attr) * 10**6, name  # room for one entry of a megabyte each


def test_docs_state_every_cache_budget():
    """docs/load.md names every cache with its entries and time-to-live."""
    doc = (ROOT / "docs" / "load.md").read_text(encoding="utf-8")
    unnamed = sorted({c["function"] for c in app_caches() if f"`{c['function']}`" not in doc})
    assert not unnamed, unnamed


def held_bytes(obj, seen: set | None = None) -> int:
    """Bytes of the numpy arrays ``obj`` holds (through dataclass fields and attributes), each buffer once."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        base = obj
        while isinstance(base.base, np.ndarray):
            base = base.base
        if base is not obj and id(base) in seen:
            return 0
        seen.add(id(base))
        return base.nbytes
    if isinstance(obj, (list, tuple)):
        return sum(held_bytes(v, seen) for v in obj)
    if dataclasses.is_dataclass(obj) or hasattr(obj, "__dict__"):
        return sum(held_bytes(v, seen) for v in vars(obj).values())
    return 0


def _table(n: int, d: int):
    from ui.data import Dataset

    X = np.random.default_rng(0).normal(size=(n, d)) * 2.0
    return Dataset(X=X, name="table", key=f"test-table-{n}x{d}")


def _scaled_values(d: int, R: float) -> dict:
    from ui import scenario

    return {**scenario.DEFAULTS, "scale": "private", "bounds": ",".join(["8.0"] * d), "R": R, "center": "none"}


def _alive_scaled(key: str) -> list:
    """The privately scaled inputs of the table ``key`` still alive (kept by a cache: the test holds none)."""
    from ui.compute import PrivatelyScaled

    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, PrivatelyScaled) and o.key.startswith(key + "|")]


@pytest.mark.parametrize("shape", [(300, 4), (500, 12), (200, 30)])
def test_the_estimate_of_a_scaled_input_bounds_what_it_holds(shape):
    """Every array a privately scaled input holds once its rows are formed (centred with the empirical mean: a
    copy of the rows), its table included, is inside :func:`ui.limits.scaled_entry_bytes`."""
    from ui import compute, limits

    ds = _table(*shape)
    for center in ("none", "empirical", "private"):
        prep = compute.scaled_input(ds.key, center, 3.0, compute.experiments.ScaleRule((8.0,) * ds.d), None, ds.X)
        prep.data.rows  # formed on first use, and then kept
        assert held_bytes(prep) <= limits.scaled_entry_bytes(ds.n, ds.d), center


def test_one_upload_explored_at_8_values_of_R_stays_inside_the_byte_budget(monkeypatch):
    """The attack of issue 63.2 at a small size: 8 values of R on one table. The privately scaled inputs kept stay
    within their byte budget and their entry budget; a table too large for its share is computed, not kept."""
    from ui import compute, limits

    n, d = 2_000, 10
    one = 8 * (3 * n * d + 2 * n + 3 * d * d)  # limits.scaled_entry_bytes(n, d), written out: main has no such name
    monkeypatch.setattr(limits, "SCALED_CACHE_BYTES", 2 * one + 1, raising=False)  # room for two such entries
    compute._prepare_scaled.clear()
    ds = _table(n, d)
    for R in (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0):
        prep = compute.prepare(ds, _scaled_values(d, R))
        prep.data.rows  # a mechanism reads the rows: the entry now holds them
    del prep
    kept = _alive_scaled(ds.key)
    entries = limits.SCALED_CACHE_ENTRIES if hasattr(limits, "SCALED_CACHE_ENTRIES") else 2
    assert len(kept) <= entries, len(kept)
    assert sum(held_bytes(p) for p in kept) <= limits.SCALED_CACHE_BYTES
    assert compute.prepare(ds, _scaled_values(d, 12.0)) is compute.prepare(ds, _scaled_values(d, 12.0))  # cached

    monkeypatch.setattr(limits, "SCALED_CACHE_BYTES", one // 2, raising=False)  # no room for one entry
    compute._prepare_scaled.clear()
    big = compute.prepare(ds, _scaled_values(d, 5.0))
    assert big.key.startswith(ds.key)  # still computed for this run
    del big, kept
    assert not _alive_scaled(ds.key)
