"""The examples in the package's docstrings run and print what they say."""
import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["nlgmetrics", "nlgmetrics.sam", "nlgmetrics.rome"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module),
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
