"""shaderbuild dxil backend.

Pipeline (backend.compile_dxil): lower.py turns the IR entry into one LLVM 3.7
function (inlining, scalarisation, structured CFG, dx.op calls from ops.py;
signature.py + sigpack.py build and pack the stage I/O signatures; ssa.py
builds locals as SSA values during lowering); mem2reg.py / dce.py / cse.py
tidy it; dxmeta.py adds the dx.* metadata; check.py
self-checks; writer.py + bitstream.py write the bitcode; container.py wraps it
in a DXBC container (hash.py for the retail hash); disasm.py prints --Fc text.
"""

__version__ = "0.1.0"
