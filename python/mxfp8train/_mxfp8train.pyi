# ===- _mxfp8train.pyi - type stubs of the private extension ---------------=== #
#
# Kept by hand beside the package (python/src/*.cpp binds these). The public
# API is the mxfp8train package; its modules are typed inline.
#
# ===----------------------------------------------------------------------=== #
from typing import List, Optional, Tuple

import numpy as np

# (severity, location, message, notes)
_Diagnostic = Tuple[str, str, str, list]
# (name, location, location name, attributes, operand types, result types)
_Operation = Tuple[str, str, str, dict, List[str], List[str]]
# (name, location, op name, decision, role, reason, (batch, m, n, k))
_Entry = Tuple[str, str, str, str, str, str, Tuple[int, int, int, int]]

class Context:
    def __init__(self) -> None: ...
    def take_diagnostics(self) -> List[_Diagnostic]: ...

class Module:
    @staticmethod
    def parse(context: Context, text: str) -> Optional[Module]: ...
    def print(self, generic: bool = False, debug_info: bool = False) -> str: ...
    def verify(self) -> bool: ...
    def clone(self) -> Module: ...
    def walk(self) -> List[_Operation]: ...
    def run_pipeline(self, pipeline: str) -> str: ...
    @property
    def context(self) -> Context: ...

def convert_module(
    module: Module,
    recipe: str,
    scale_mode: Optional[int],
    wgrad_with_hp: Optional[bool],
    out_dtype: Optional[str],
    pad_token_groups: Optional[bool],
    token_group_alignment: Optional[int],
    kernel_preference: Optional[int],
    elem_type: Optional[str],
    min_size: int,
    exclude: List[str],
    emit_remarks: bool,
) -> Tuple[bool, str, List[_Entry]]: ...
def run_function(
    module: Module,
    function: str,
    inputs: List[Tuple[int, List[int], np.ndarray]],
    device: int,
    gpu: int,
    chip: str,
    vectorize: bool,
    simple_gemm: bool,
) -> Tuple[str, List[Tuple[int, List[int], bytes]]]: ...
def cuda_available(gpu: int = 0) -> Tuple[bool, str]: ...

# Only when the C API has mxfp8trainCompareFunction (Compare.h).
# (error, passed, results, matmuls); rows are (name, sqnr, bar, passed).
def compare_function(
    module: Module,
    function: str,
    recipe: str,
    device: int,
    gpu: int,
    chip: str,
    vectorize: bool,
    simple_gemm: bool,
    seed: int,
) -> Tuple[str, bool, List[Tuple[str, float, float, bool]], List[Tuple[str, float, float, bool]]]: ...
