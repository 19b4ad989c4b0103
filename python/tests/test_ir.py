# ===- test_ir.py - Context, Module, Operation, pipelines, MLIRError -------=== #
import os
import pathlib

import pytest

import mxfp8train as mx

ADD = """
func.func @add() -> i32 {
  %a = arith.constant 1 : i32 loc("a")
  %b = arith.constant 2 : i32
  %c = arith.addi %a, %b : i32 loc(fused["sum", "x.mlir":3:4])
  return %c : i32
}
"""


def test_parse_print_round_trip():
    m = mx.Module.parse(ADD)
    text = str(m)
    assert "func.func @add() -> i32" in text
    assert "%c1_i32 = arith.constant 1 : i32" in text
    again = mx.Module.parse(text, m.context)
    assert str(again) == text


def test_walk_names_locations_attributes():
    ops = list(mx.Module.parse(ADD).walk())
    assert [op.name for op in ops] == [
        "func.func", "arith.constant", "arith.constant", "arith.addi", "func.return"]
    func, a, b, add, ret = ops
    assert func.attributes["sym_name"] == "add"
    assert func.attributes["function_type"] == "() -> i32"
    assert a.attributes == {"value": 1}
    assert b.attributes == {"value": 2}
    assert a.loc_name == "a" and a.location == 'loc("a")'
    # The first NameLoc inside a fused location.
    assert add.loc_name == "sum"
    assert b.loc_name == ""
    assert add.operand_types == ("i32", "i32") and add.result_types == ("i32",)
    assert mx.Module.parse(ADD).operations("arith.constant") == [a, b]


def test_parse_error_is_located():
    with pytest.raises(mx.MLIRError) as info:
        mx.Module.parse("func.func @f() {\n  %0 = arith.constant 1 : i32\n  return %0 : i32\n}")
    err = info.value
    assert err.diagnostics[0].severity == "error"
    assert err.diagnostics[0].location == 'loc("-":3:3)'
    assert "'func.return' op has 1 operands, but enclosing function (@f) returns 0" in str(err)
    assert 'loc("-":3:3): error:' in str(err)


def test_syntax_error_is_located():
    with pytest.raises(mx.MLIRError) as info:
        mx.Module.parse("func.func @f( {")
    assert info.value.diagnostics[0].location.startswith('loc("-":1:')


def test_verify_reports_the_op_location():
    # Parses (generic form bypasses nothing) but the grouped_mm verifier
    # rejects offsets of the wrong length.
    text = """
    func.func @g(%x: tensor<64x32xbf16>, %w: tensor<4x16x32xbf16>, %o: tensor<3xi32>) -> tensor<64x16xbf16> {
      %y = mxfp8train.grouped_mm %x, %w offs(%o) transpose_rhs
          : tensor<64x32xbf16>, tensor<4x16x32xbf16>, tensor<3xi32> -> tensor<64x16xbf16> loc("moe.bad")
      return %y : tensor<64x16xbf16>
    }"""
    with pytest.raises(mx.MLIRError) as info:
        mx.Module.parse(text)
    d = info.value.diagnostics[0]
    assert d.location == 'loc("moe.bad")'
    assert d.message.startswith("'mxfp8train.grouped_mm' op")


def test_verify_ok_and_clone_is_independent():
    m = mx.Module.parse(ADD)
    m.verify()
    c = m.clone()
    c.run_pipeline("canonicalize")
    assert "arith.addi" in str(m)
    assert "arith.addi" not in str(c)
    assert "arith.constant 3 : i32" in str(c)


def test_run_pipeline_forms_and_errors():
    m = mx.Module.parse(ADD)
    assert m.run_pipeline("builtin.module(func.func(canonicalize),cse)") is m
    assert "arith.constant 3 : i32" in str(m)
    with pytest.raises(mx.MLIRError) as info:
        m.run_pipeline("no-such-pass")
    assert "invalid pass pipeline 'no-such-pass'" in str(info.value)
    assert "no-such-pass" in info.value.summary


def test_run_pipeline_with_our_passes():
    m = mx.builders.linear(32, 64, 64, bias=False)
    m.run_pipeline("mxfp8train-rewrite-matmuls")
    names = [op.name for op in m.walk()]
    assert names.count("mxfp8train.scaled_mm") == 3
    assert names.count("linalg.matmul") == 0


def test_missing_extension_names_the_build_and_the_fix(tmp_path):
    # The installed package without a loadable extension (its build deleted):
    # the ImportError says where the library comes from and how to reinstall.
    import shutil
    import subprocess
    import sys

    package = tmp_path / "mxfp8train"
    shutil.copytree(
        pathlib.Path(mx.__file__).parent, package,
        ignore=shutil.ignore_patterns("_mxfp8train*", "__pycache__"))
    done = subprocess.run(
        [sys.executable, "-c", "import mxfp8train"], cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": os.environ.get("PATH", "")},
        capture_output=True, text=True)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: mxfp8train cannot load its extension"), last
    assert "pip install --no-build-isolation ./python" in last, last


def test_attribute_values_are_exact():
    # Integers wider than 64 bits came back wrapped (-1 for 2**127 - 1) and
    # strings and keys were cut at an embedded NUL.
    m = mx.Module.parse(
        'func.func @f() attributes {big = 170141183460469231731687303715884105727 : i128, '
        'neg = -170141183460469231731687303715884105728 : i128, '
        'ubig = 340282366920938463463374607431768211455 : ui128, s = "a\\00b"} { return }'
    )
    attributes = m.operations("func.func")[0].attributes
    assert attributes["big"] == 2**127 - 1
    assert attributes["neg"] == -(2**127)
    assert attributes["ubig"] == 2**128 - 1
    assert attributes["s"] == "a\x00b"


def test_bad_context_and_text_types():
    with pytest.raises(TypeError, match="context must be an mxfp8train Context or None, got 42"):
        mx.Module.parse("module {}", context=42)
    with pytest.raises(ValueError, match="text is not valid UTF-8 text"):
        mx.Module.parse("\ud800")
    with pytest.raises(TypeError, match="text must be a str"):
        mx.Module.parse(b"module {}")
