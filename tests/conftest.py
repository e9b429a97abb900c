"""Shared fixtures: where the MULAN benchmark files are, and seeds."""
import os
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parent.parent


def shared_data_dir():
    """The benchmark data folder: $CORSET_DATA, else ../shared/data beside the repository."""
    env = os.environ.get("CORSET_DATA")
    if env:
        return Path(env)
    return _REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir():
    """Path of the MULAN data folder; skips the test when it is absent."""
    path = shared_data_dir()
    if not path.is_dir():
        pytest.skip(f"benchmark data folder not found at {path} (set CORSET_DATA or place ../shared/data)")
    return path


@pytest.fixture(params=range(8))
def global_random_seed(request):
    """Run a test for several fixed seeds, not one lucky seed."""
    return request.param


@pytest.fixture
def threaded_searches(monkeypatch):
    """Every pool's head searches on the ``n_jobs`` threads a fit has, however short they are.

    By default a pool's searches get threads only once the last pool's took a millisecond
    (``THREADED_SEARCH_MIN_SECONDS``), which the small data of the tests never reach: without
    this, a test comparing n_jobs values would compare one thread with one thread.
    """
    import corset.sampling._candidates as candidates

    monkeypatch.setattr(candidates, "THREADED_SEARCH_MIN_SECONDS", 0.0)


@pytest.fixture
def tiny_data():
    """A 5-record BinaryData (4 features, 3 labels) for the input-check tests."""
    import numpy as np

    from corset import BinaryData

    X = np.array([[1, 0, 1, 0],
                  [1, 1, 0, 0],
                  [0, 1, 1, 1],
                  [1, 1, 1, 0],
                  [0, 0, 1, 1]], dtype=np.uint8)
    Y = np.array([[1, 1, 0],
                  [1, 0, 1],
                  [0, 1, 1],
                  [1, 1, 1],
                  [1, 0, 0]], dtype=np.uint8)
    return BinaryData(X, Y)
