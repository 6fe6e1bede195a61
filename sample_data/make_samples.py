"""Regenerate the shipped sample datasets from scikit-learn's bundled copies: python sample_data/make_samples.py"""
from pathlib import Path

from sklearn import datasets

HERE = Path(__file__).resolve().parent


def main():
    for loader, name, label, names in (
        (datasets.load_wine, "wine", "class", None),
        (datasets.load_breast_cancer, "breast_cancer", "diagnosis", None),
        (datasets.load_iris, "iris", "species", None),
    ):
        bunch = loader(as_frame=True)
        frame = bunch.frame.rename(columns={"target": label})
        frame[label] = [bunch.target_names[t] for t in bunch.target]
        frame.to_csv(HERE / f"{name}.csv", index=False, float_format="%.6g")


if __name__ == "__main__":
    main()
