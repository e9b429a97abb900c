"""The examples of the user-facing documentation run as written."""
import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("page", ["guide.rst", "model.rst"])
def test_documentation_examples_run(page):
    pytest.importorskip("pandas")
    path = DOCS / page
    if not path.exists():
        pytest.skip(f"{path} not found (tests run outside a source checkout)")
    result = doctest.testfile(str(path), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 6 and result.failed == 0
