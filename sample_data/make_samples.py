"""Regenerate the shipped sample datasets from scikit-learn's bundled copies (no download).

Usage: python sample_data/make_samples.py

Each CSV holds the numeric features (scikit-learn's column names, values exactly as bundled) followed by
the label column with the class names as text. Sources, licences and citations: sample_data/README.md.
"""

from pathlib import Path

from sklearn import datasets

HERE = Path(__file__).resolve().parent
SAMPLES = (  # (scikit-learn loader, file stem, label column)
    (datasets.load_wine, "wine", "class"),
    (datasets.load_breast_cancer, "breast_cancer", "diagnosis"),
    (datasets.load_iris, "iris", "species"),
)
MAX_BYTES = 200_000


def write(loader, stem: str, label: str) -> Path:
    bunch = loader(as_frame=True)
    frame = bunch.data.copy()
    frame[label] = [str(bunch.target_names[t]) for t in bunch.target]
    path = HERE / f"{stem}.csv"
    frame.to_csv(path, index=False, lineterminator="\n")
    if path.stat().st_size > MAX_BYTES:
        raise SystemExit(f"{path.name} is {path.stat().st_size} bytes, over {MAX_BYTES}; keep samples small.")
    return path


def main() -> None:
    for loader, stem, label in SAMPLES:
        path = write(loader, stem, label)
        print(f"wrote {path.name} ({path.stat().st_size / 1000:.0f} KB)")


if __name__ == "__main__":
    main()
