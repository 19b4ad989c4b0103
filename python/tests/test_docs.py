# ===- test_docs.py - the Python snippets of the README and docs/python.md -=== #
import re

import pytest

from conftest import REPO


def snippets(path):
    return re.findall(r"```python\n(.*?)```", (REPO / path).read_text(), re.S)


@pytest.mark.parametrize("path", ["README.md", "docs/python.md"])
def test_snippets_run(path, capsys):
    found = snippets(path)
    assert found, "no python snippet in %s" % path
    for code in found:
        namespace = {}
        exec(compile(code, str(REPO / path), "exec"), namespace)
    if path == "README.md":
        report = namespace["report"]
        assert [(e.name, e.decision) for e in report.entries] == [
            ("linear.fwd", "converted"), ("linear.dgrad", "converted"),
            ("linear.wgrad", "kept_high_precision")]
        # ones @ ones^T over K = 64, exact in MXFP8, plus the bias 1.
        assert float(namespace["y"][0, 0]) == 65.0
        assert float(namespace["db"][0]) == 32.0
    else:
        report = namespace["report"]
        assert report.entry("mlp.w1.fwd").role == "forward"
        assert [e.name for e in report.skipped] == ["mlp.w2.fwd", "mlp.w2.dgrad", "mlp.w2.wgrad"]
