"""The README's library example runs as written and prints what it says."""

import pathlib
import re


def test_readme_example_runs(capsys):
    text = (pathlib.Path(__file__).parents[1] / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("(epsilon = 1, delta = 10⁻⁶)")  # the guarantee in words, numbers read at a glance
    assert out[1].startswith("0.2367-Gaussian DP")  # the exact curve the comment quotes
    assert "NOT covered" in out[2]  # diagnostics say they are not private
    assert 0 < float(out[3]) < 1.0  # a subspace distance


ROOT = pathlib.Path(__file__).parents[1]
# the two commands run python -m ... through the bootstrap, which makes or reuses a virtual environment: a bare
# "python3 -m pip install" fails on a Debian or Ubuntu system Python (PEP 668; tests/test_bootstrap.py)
APP_COMMAND = "python3 scripts/in_venv.py -r requirements.txt -m streamlit run app.py"
TEST_COMMAND = "bash scripts/install_browser.sh && python3 scripts/in_venv.py -r requirements-dev.txt -m pytest"


def readme_commands() -> list[str]:
    return re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)


def test_readme_has_the_two_commands_and_ci_runs_exactly_the_second():
    assert readme_commands() == [APP_COMMAND, TEST_COMMAND]
    ci_lines = [
        line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip() and not line.startswith("#")
    ]
    assert ci_lines[-1] == TEST_COMMAND  # what CI runs last is the README's line, character for character


def test_docs_start_the_app_and_run_the_tests_with_the_readme_commands():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    checked = 0
    for page in pages:
        text = page.read_text()
        fenced = re.compile(r"```[a-z]*\n(.*?)```", re.S)
        # fenced blocks, then the inline code spans of the rest; whitespace normalised (a span may wrap a line)
        snippets = fenced.findall(text) + re.findall(r"`([^`]+)`", fenced.sub("", text))
        for snippet in (" ".join(part.split()) for part in snippets):
            if "streamlit run" in snippet:
                assert APP_COMMAND in snippet, f"{page.name}: {snippet!r} starts the app another way"
                checked += 1
            if re.search(r"(^|\s)(-m )?pytest($|\s)", snippet):
                assert TEST_COMMAND.split(" && ")[1] in snippet, f"{page.name}: {snippet!r} runs the tests another way"
                checked += 1
            assert not re.search(
                r"pip install .*-r requirements(-dev)?\.txt", snippet
            ), f"{page.name}: {snippet!r} installs into the system Python (refused on Debian/Ubuntu)"
    assert checked >= 2  # the README's own two commands were among the snippets checked


def test_readme_links_resolve_inside_the_repository():
    readme = (ROOT / "README.md").read_text()
    # every relative link resolves to a file of this repository: users have nothing outside it
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme):
        if "://" in target:
            continue
        path = (ROOT / target).resolve()
        assert path.is_relative_to(ROOT.resolve()) and path.exists(), target
    assert "ALGORITHMS" not in readme
