"""`--Fc` text: container parts, resources and signatures as comments, then
the module in LLVM-IR syntax."""

from __future__ import annotations

from .backend import DxilOutput
from .container import parse_container
from .llvm.printer import print_module

__all__ = ["disassemble"]

_CLASS_PREFIX = {"SRV": "t", "UAV": "u", "CBV": "cb", "Sampler": "s"}


def disassemble(out: DxilOutput) -> str:
    lm = out.lowered
    lines = [f"; shaderbuild DXIL: {lm.stage} shader, SM {lm.sm[0]}.{lm.sm[1]}, hash {out.info.hash_mode}",
             ";", "; Container parts:"]
    for name, data in parse_container(out.container).items():
        lines.append(f";   {name}  {len(data)} bytes")
    if lm.stage == "compute":
        lines.append(f"; numthreads({', '.join(map(str, lm.numthreads))})")
    lines += [";", "; Resource bindings:", ";   name  class  range  space  lower  count"]
    for r in lm.resources:
        count = "unbounded" if r.count is None else str(r.count)
        lines.append(f";   {r.var.name}  {r.res_class}  {r.range_id}  space{r.space}  "
                     f"{_CLASS_PREFIX[r.res_class]}{r.lower}  {count}")
    if lm.stage == "library":          # a library: no signatures; its shaders and subobjects
        lines += [";", "; Exports:", ";   name  kind  payload  attributes"]
        lines += [f";   {f.name}  {f.kind}  {f.payload_size}  {f.attribute_size}" for f in lm.library]
        if lm.subobjects:
            lines += [";", "; Subobjects:"] + [f";   {o.name}  {o.kind}" for o in lm.subobjects]
        lines.append(";")
        return "\n".join(lines) + "\n" + print_module(lm.llmod)
    for title, elems in (("Input signature", lm.inputs), ("Output signature", lm.outputs)):
        lines += [";", f"; {title}:"]
        for e in elems:
            reg = "NA" if e.start_row < 0 else str(e.start_row)
            first = max(e.start_col, 0)
            mask = "".join("xyzw"[c] if first <= c < first + e.cols else "_" for c in range(4))
            lines.append(f";   {e.name}{e.index}  register {reg}  mask {mask}  rows {e.rows}")
    lines.append(";")
    return "\n".join(lines) + "\n" + print_module(lm.llmod)
