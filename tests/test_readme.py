"""The README's library example runs as written and prints what it says."""
import pathlib
import re


def test_readme_example_runs(capsys):
    text = (pathlib.Path(__file__).parents[1] / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("(epsilon = 1, delta = 1e-06)")  # the guarantee in words
    assert out[1].startswith("0.2367-Gaussian DP")  # the exact curve the comment quotes
    assert "NOT covered" in out[2]  # diagnostics say they are not private
    assert 0 < float(out[3]) < 1.0  # a subspace distance


def test_readme_commands_are_what_ci_runs():
    root = pathlib.Path(__file__).parents[1]
    readme, ci = (root / "README.md").read_text(), (root / ".ci" / "run").read_text()
    test_command = re.findall(r"```bash\n(.*?)\n```", readme, re.S)[1]
    assert test_command in ci
    # every relative link resolves to a file of this repository: users have nothing outside it
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme):
        if "://" in target:
            continue
        path = (root / target).resolve()
        assert path.is_relative_to(root.resolve()) and path.exists(), target
    assert "ALGORITHMS" not in readme
