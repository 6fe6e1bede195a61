import numpy as np
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from dppca_core import DPPCA
from tests.helpers import spiked_rows

X, U = spiked_rows(2000, 6, 2, seed=0)


def test_fit_transform_shapes_and_layout():
    est = DPPCA(n_components=2, epsilon=5.0, random_state=0).fit(X)
    assert est.components_.shape == (2, 6)
    assert np.allclose(est.components_ @ est.components_.T, np.eye(2), atol=1e-10)
    Z = est.transform(X)
    assert Z.shape == (2000, 2)
    assert np.allclose(Z, est.fit_transform(X))  # same random_state -> same release
    assert est.inverse_transform(Z).shape == X.shape
    assert est.release_["epsilon"] == 5.0


def test_clone_and_pipeline():
    est = clone(DPPCA(n_components=1, mechanism="private_power", random_state=1,
                      mechanism_params={"iterations": 5}))
    pipe = make_pipeline(FunctionTransformer(), est).fit(X)
    assert pipe.transform(X).shape == (2000, 1)


def test_errors():
    est = DPPCA(n_components=2, random_state=0)
    with pytest.raises(Exception, match="not fitted"):
        est.transform(X)
    est.fit(X)
    with pytest.raises(ValueError, match="features"):
        est.transform(X[:, :3])
    with pytest.raises(ValueError, match="1 <= k"):
        DPPCA(n_components=9).fit(X)
