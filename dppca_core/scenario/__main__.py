"""python -m dppca_core.scenario > docs/scenario.schema.json: the scenario file's JSON schema."""

import json

from .file import file_schema

print(json.dumps(file_schema(), indent=1, ensure_ascii=False))
