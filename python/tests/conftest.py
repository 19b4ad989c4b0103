# ===- conftest.py - shared fixtures of the mxfp8train Python tests --------=== #
#
# Paths of the repository (examples/) and of the build whose tools the tests
# compare with (mxfp8-run): $MXFP8TRAIN_BUILD_DIR, default <repo>/build.
#
# ===----------------------------------------------------------------------=== #
import os
import pathlib

import ml_dtypes
import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("MXFP8TRAIN_BUILD_DIR", REPO / "build"))
BF16 = ml_dtypes.bfloat16


@pytest.fixture
def repo():
    return REPO


@pytest.fixture
def mxfp8_run():
    tool = BUILD / "bin" / "mxfp8-run"
    assert tool.is_file(), "mxfp8-run not built at %s (set MXFP8TRAIN_BUILD_DIR)" % tool
    return tool


def normal(rng, shape, std):
    """bf16 samples of N(0, std^2)."""
    return (rng.standard_normal(shape) * std).astype(BF16)


def f64(a):
    return np.asarray(a).astype(np.float64)
