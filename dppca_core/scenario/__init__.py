"""The scenario: every setting of the app, its validation, and its two portable forms (UI-free).

A scenario is a dict of every setting (:data:`FIELDS`, each with its type, default and range) plus any mechanism
parameter (``<mechanism>.<parameter>``, validated by the registry). It leaves the app in two forms, and both come
back through the same validation, so a hostile or hand-edited value falls back to its default with a notice:

* a link's query string (:func:`to_query`, :func:`from_query`): only what differs from the defaults;
* a **scenario file** (:class:`Scenario`, :func:`to_toml`, :func:`from_toml`): versioned TOML holding every
  setting, grouped by page, with the public schema of the data (its columns, label, what a bad cell becomes) as
  lists and tables. A scenario file never holds data rows: nothing in a scenario is read from a table's cells.
  Its format: ``docs/notebooks.md``, its JSON schema: ``docs/scenario.schema.json`` (:func:`file_schema`).

The Streamlit app holds the session's scenario and binds widgets to it in ``ui/scenario.py``.
"""

from __future__ import annotations

from .fields import (  # noqa: F401 - every name of the scenario, importable from here as before
    MAX_CELLS,
    MAX_RAW_CHARS,
    VIEWS,
    SWEEP_AXES,
    METRICS,
    AUDIT_TRIALS,
    R_SOURCES,
    SCALE_SOURCES,
    K_SOURCES,
    K_EIGENVALUE_SHARE,
    NONPRIVATE_CENTRING,
    MAX_BOUNDS,
    MAX_WHOLE,
    SHOWN_CHARS,
    shown,
    check_whole,
    Field,
    MAX_SCHEMA_COLUMNS,
    BAD_CELLS,
    MAX_GROUPS,
    PLAN_TARGET_FIELDS,
    PLAN_STANDINS,
    SEED_MAX,
    FIELDS,
    DEFAULTS,
)
from .link import (  # noqa: F401 - every name of the scenario, importable from here as before
    validate_param,
    checked,
    cap_size,
    from_query,
    in_metric_unit,
    default_target,
    is_default,
    to_query,
    query_string,
    too_long_for_a_link,
    link_query,
    from_fields,
)
from .settings import Setting, Settings  # noqa: F401 - every setting read by name (Settings(vals).epsilon)
from .prescan import LIMITS as FILE_LIMITS, prescan  # noqa: F401 - the scenario file's structure, before parsing
from .file import (  # noqa: F401 - every name of the scenario, importable from here as before
    FILE_FORMAT,
    FILE_VERSION,
    FILE_FIRST_LINE,
    MAX_FILE_BYTES,
    SECTIONS,
    OTHER_SECTION,
    PARAMETERS_SECTION,
    STRUCTURED,
    section_of,
    to_document,
    from_document,
    to_toml,
    from_toml,
    Scenario,
    file_schema,
)
