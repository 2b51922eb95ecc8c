"""SPIR-V optimisation (-O1..-O3): the target-specific half of the optimiser.

The shared IR passes inline calls and fold constants (shaderbuild/passes); what needs SSA
form is done here on the emitted module, where OpVariable/OpLoad/OpStore become values:
statics to locals (locals.py), mem2reg (mem2reg.py), composite peepholes and complete
insert chains to one construct (simplify.py), constant folding (fold.py), empty diamonds to
OpSelect and block joining (flatten.py), common subexpressions (cse.py), dead code and dead globals (dce.py).
"""

from __future__ import annotations

from . import cse, dce, flatten, locals, mem2reg, simplify
from .fold import Folder
from .module import ModuleInfo, parse, serialize


def optimize(binary: bytes, level: int) -> bytes:
    """`binary` optimised at `level` (0: unchanged)."""
    if level < 1:
        return binary
    m = parse(binary)
    info = ModuleInfo(m)
    locals.private_to_local(m, info)
    folder = Folder(info)
    for f in m.functions:
        mem2reg.run(f, info)
        simplify.run(f, info, folder)
        dce.function_dce(f, info)
        if mem2reg.run(f, info):        # indices folded to constants make more variables promotable
            simplify.run(f, info, folder)
            dce.function_dce(f, info)
        if simplify.insert_chains(f, info):
            simplify.run(f, info, folder)
            dce.function_dce(f, info)
        for _ in range(4):              # each round's folding can expose more constant branches and diamonds
            if not flatten.run(f, folder):
                break
            simplify.run(f, info, folder)
            dce.function_dce(f, info)
        # CSE leaves no dead code (a merged value's operands are its twin's), and the function was
        # dead-code free before it: DCE only when simplify changed something
        if level >= 2 and cse.run(f, info) and simplify.run(f, info, folder):
            dce.function_dce(f, info)
    dce.global_dce(m)
    return serialize(m)
