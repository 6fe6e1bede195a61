"""The README's library example runs as written."""
import pathlib
import re


def test_readme_example_runs(capsys):
    text = (pathlib.Path(__file__).parents[1] / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "analyze_gauss" in out and "subspace distance:" in out
