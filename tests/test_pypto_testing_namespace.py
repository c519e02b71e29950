"""`pypto.testing`: the helpers plugins publish with `register_testing_attribute` (docs/plugins.md, hooks)."""

from __future__ import annotations

import pytest

import pypto.testing


def test_a_published_helper_is_found():
    assert callable(pypto.testing.recognize_dsa_reuse_penalties)


def test_an_unknown_helper_is_an_attribute_error_with_a_suggestion():
    with pytest.raises(AttributeError, match="no plugin publishes a testing helper 'recognize_dsa_reuse_penalty'.*"
                                             "did you mean 'recognize_dsa_reuse_penalties'"):
        pypto.testing.recognize_dsa_reuse_penalty  # noqa: B018


def test_pyptos_module_path_is_the_same_module():
    from pypto.pypto_core import testing

    assert testing is pypto.testing
    assert testing.recognize_dsa_reuse_penalties is pypto.testing.recognize_dsa_reuse_penalties
