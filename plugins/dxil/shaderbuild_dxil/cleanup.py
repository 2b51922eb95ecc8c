"""The clean-up after lowering, in as few walks over the function as the passes allow.

Run one after another, the passes (cfg, mem2reg, cse, undef_outputs, dce) and the module's
questions afterwards (which declarations are still called, which signature components are
read or written) each walked every instruction.  Here the trivial-phi rewrite, CSE and the
collection of the I/O calls share CSE's walk (the rewrite goes with CSE's own; the calls are
collected by per-callee hooks, decided once per callee); the undef output stores are looked
for among the collected stores only; DCE's use counts, which it builds anyway, answer what is
still called and read; the unreachable-block search hands block merging its predecessor
table; promotion runs only when an alloca exists.  Each pass stays usable on its own.
"""

from __future__ import annotations

from shaderbuild.lightstd import attrgetter
from shaderbuild.records import DataRecord

from . import cfg
from .cse import eliminate_common_calls
from .dce import remove_dead_code
from .llvm.values import Function, Instruction, Value
from .mem2reg import promote_allocas, prune_trivial_phis, trivial_phi_replacements
from .ops import LOAD_INPUT, STORE_OUTPUT
from .rotate import rotate_loops
from .undef_outputs import remove_undef_among, remove_undef_output_stores

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .cse import CallHook

__all__ = ["Cleaned", "clean_up"]

_opcode = attrgetter("op")


class Cleaned(DataRecord):
    """What the module still needs from the function: the functions it calls, and its
    loadInput/storeOutput calls (for the signature's usage masks)."""

    callees: set[Value]
    io_calls: list[Instruction]


def clean_up(f: Function, forwarded: dict[Value, Value], optimize: bool, locs: dict | None = None) -> Cleaned:
    """Clean up a lowered function in place.  `forwarded`: the SSA construction's trivial
    phis (phi -> value), whose uses are still to be rewritten.  Without `optimize` only the
    switches on a constant or to one block (branches now), the unreachable blocks, the empty blocks on the way to
    a loop latch or out of a loop and the undef output stores go, endless loops get a never-taken exit and the
    cases falling into a small case get its copy.  `locs`: the -Zi locations (instruction -> location), which the
    copies made by case duplication and loop rotation get too."""
    cfg.fold_trivial_switches(f)                         # for dxil-spirv, also without optimisation
    cfg.fold_constant_branches(f, forwarded)
    only_pred = cfg.remove_unreachable_blocks(f)
    # for dxil-spirv, also without optimisation; the table of single predecessors changes
    if cfg.give_endless_loops_an_exit(f) | cfg.duplicate_fallen_into_cases(f, locs):
        only_pred = cfg.remove_unreachable_blocks(f)
    if rotate_loops(f, forwarded, locs):                 # for dxil-spirv, also without optimisation
        only_pred = cfg.remove_unreachable_blocks(f)
    bypassed = cfg.bypass_continue_blocks(f)             # for dxil-spirv, also without optimisation
    bypassed = cfg.bypass_break_blocks(f) or bypassed
    if not optimize:
        remove_undef_output_stores(f)
        return _calls_left(f)
    if "alloca" in map(_opcode, f.blocks[0].instructions):
        if forwarded:        # promotion prunes trivial phis of its own, which a forwarded phi may lead to
            prune_trivial_phis(f, forwarded)
            forwarded = {}
        promote_allocas(f)               # local arrays indexed only by constants (split first)
    # rewrites uses of forwarded phis; dropping unreachable predecessors can leave more
    pending = trivial_phi_replacements(f, forwarded)
    cfg.merge_straight_line_blocks(f, None if bypassed else only_pred)    # promotion and phi pruning keep the edges
    callees: list[Value] = []
    stores: list[Instruction] = []
    loads: list[Instruction] = []

    def hook_for(callee: Value) -> CallHook | None:
        callees.append(callee)
        name = callee.name
        return stores.append if name.startswith(STORE_OUTPUT) else loads.append if name.startswith(LOAD_INPUT) \
            else None

    eliminate_common_calls(f, pending, hook_for)
    stores = remove_undef_among(f, stores)               # after CSE, as a pass of its own would run
    removed, uses = remove_dead_code(f)
    # a case holding only dead code is empty now: its switch folds as DXC's simplifycfg, run after DCE, folds it
    # (dxil-spirv left the merge of a switch fallen through such a case without a terminator; shapes 182, 215)
    if removed and cfg.fold_trivial_switches(f):
        cfg.remove_unreachable_blocks(f)
    # blocks DCE emptied on the way to a latch go too, as bypass_continue_blocks bypasses the lowering's (an `if (c)
    # continue;` before dead code left a branch whose both targets entered the latch, and the unused returns of an
    # inlined call reached it through the blocks of their dead code: dxil-spirv took a `break` beside them for an
    # exit of the wrong selection; loops program 68 of tag fz10old, shapes 233, 769, 818 of tag campaign)
    if removed and cfg.bypass_continue_blocks(f):
        uses = remove_dead_code(f)[1]            # a condition both of whose targets became the latch is dead
    # a call or callee left has a positive use count: merged and dead reads, and callees
    # whose calls all went, have none
    return Cleaned({c for c in callees if uses[c] > 0}, stores + [i for i in loads if uses[i] > 0])


def _calls_left(f: Function) -> Cleaned:
    """The callees and I/O calls of the function, by a walk of it (without optimisation)."""
    calls = [i for bb in f.blocks for i in bb.instructions if i.op == "call"]
    io = [i for i in calls if i.operands[0].name.startswith((LOAD_INPUT, STORE_OUTPUT))]
    return Cleaned({i.operands[0] for i in calls}, io)
