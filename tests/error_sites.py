"""Which diagnostic sites of the compiler the tests reach (issue 20: every error reachable and located).

    python tests/error_sites.py list                      # every site: file:line  severity  message template
    python tests/error_sites.py run OUT.json -- PYTEST_ARGS   # run pytest, record the sites its diagnostics came from
    python tests/error_sites.py report OUT.json [...]     # sites never reached, and sites reached without a location

Each site no test reaches is classified in `error_sites_classes.tsv` (beside this file; `report` prints the
class): `a` a user program reaches it but no test does yet, `c` a check of the compiler's own invariants (an
earlier stage rules the condition out; it stays as a guard).  A site of class `b` (dead code) is deleted, not
classified; a reached site needs no class.

A *site* is a call that makes a diagnostic (`error(...)`, `sink.error/warning(...)`, `self.warn(...)`,
`stage_error(...)`, `Diagnostic(severity, ...)`) with a message written in the source, in the compiler proper
(front end, passes, IR, root signatures, both backends; not the build engine or the CLI).  Recording wraps
`Diagnostic.__init__` and notes every frame of the compiler on the stack, so a site reached through a helper
counts.  Diagnostics made in a subprocess (tests that run the CLI) are not seen.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCOPE = ("shaderbuild/front", "shaderbuild/passes", "shaderbuild/ir", "shaderbuild/rootsig",
         "shaderbuild/compiler.py", "plugins/spirv/shaderbuild_spirv", "plugins/dxil/shaderbuild_dxil")
_CALLS = {"error": 0, "warning": 0, "warn": 0, "stage_error": 0, "Diagnostic": 1}


def _files() -> list[Path]:
    out: list[Path] = []
    for s in SCOPE:
        p = ROOT / s
        out.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    return out


def _template(node: ast.expr) -> str | None:
    """The message as written, `{...}` for each interpolated part; None when it is not a literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left), _template(node.right)
        if left is not None or right is not None:
            return (left or "{...}") + (right or "{...}")
    return None


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    """Every call of the tree with the name of the function (or class) it is in."""
    out: list[tuple[str, ast.Call]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, child.name)
            else:
                if isinstance(child, ast.Call):
                    out.append((where, child))
                visit(child, where)

    visit(tree, "<module>")
    return out


def sites() -> list[dict]:
    """Every diagnostic-making call with a literal message in the compiler's source; `key` names it
    without its line (file, function, message, and which of that function's calls with that message)."""
    out = []
    for f in _files():
        rel = f.relative_to(ROOT).as_posix()
        seen: dict[tuple[str, str], int] = {}
        for func, node in sorted(_calls(ast.parse(f.read_text(), rel)), key=lambda c: (c[1].lineno, c[1].col_offset)):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            i = _CALLS.get(name or "")
            if i is None or len(node.args) <= i:
                continue
            msg = _template(node.args[i])
            if msg is None:
                continue
            severity = "warning" if name in ("warning", "warn") else "error"
            if name == "Diagnostic":
                sev = node.args[0]
                severity = sev.value if isinstance(sev, ast.Constant) else "?"
                if severity == "note":
                    continue
            n = seen[func, msg] = seen.get((func, msg), 0) + 1
            key = f"{rel} {func} {msg}" + (f" #{n}" if n > 1 else "")
            out.append({"file": rel, "line": node.lineno, "end": node.end_lineno or node.lineno,
                        "severity": severity, "message": msg, "key": key})
    out.sort(key=lambda s: (s["file"], s["line"]))
    return out


class Recorder:
    """A pytest plugin: every Diagnostic made during the run, with the compiler frames that made it."""

    def __init__(self) -> None:
        self.made: list[tuple[list[tuple[str, int]], object, str]] = []
        self.test = ""

    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
        self.test = nodeid

    def pytest_configure(self, config) -> None:
        from shaderbuild.diagnostics import Diagnostic

        Diagnostic("note", "")               # the Record __init__ is generated on first use
        original = Diagnostic.__init__
        made, root, rec = self.made, str(ROOT) + "/", self

        def init(d, *args, **kwargs) -> None:
            original(d, *args, **kwargs)
            frames, f = [], sys._getframe(1)
            while f is not None:
                name = f.f_code.co_filename
                if name.startswith(root):
                    frames.append((name[len(root):], f.f_lineno))
                f = f.f_back
            made.append((frames, d, rec.test))

        Diagnostic.__init__ = init  # type: ignore[method-assign]


def run(out: str, args: list[str]) -> int:
    import pytest

    rec = Recorder()
    status = pytest.main(args, plugins=[rec])
    by_site = {(s["file"], s["line"]): s for s in sites()}
    spans: dict[str, list[dict]] = {}
    for s in by_site.values():
        spans.setdefault(s["file"], []).append(s)
    hits: dict[str, dict] = {}
    for frames, d, test in rec.made:
        sev = getattr(d, "severity", "")
        if sev == "note":
            continue
        for file, line in frames:
            for s in spans.get(file, ()):
                if s["line"] <= line <= s["end"]:
                    h = hits.setdefault(f"{file}:{s['line']}", {"count": 0, "unlocated": 0, "tests": []})
                    h["count"] += 1
                    if getattr(d, "loc", None) is None:
                        h["unlocated"] += 1
                        if len(h["tests"]) < 3 and test not in h["tests"]:
                            h["tests"].append(test)     # where to look
                    break
            else:
                continue
            break
    Path(out).write_text(json.dumps(hits, indent=1, sort_keys=True) + "\n")
    return int(status)


CLASSES = ROOT / "tests" / "error_sites_classes.tsv"


def classes() -> dict[str, tuple[str, str]]:
    """The classification of unreached sites: site key -> (class, reason)."""
    out: dict[str, tuple[str, str]] = {}
    for line in CLASSES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, cls, reason = line.split("\t")
            out[key] = (cls, reason)
    return out


def report(paths: list[str]) -> None:
    hits: dict[str, dict] = {}
    for p in paths:
        for k, v in json.loads(Path(p).read_text()).items():
            h = hits.setdefault(k, {"count": 0, "unlocated": 0, "tests": []})
            h["count"] += v["count"]
            h["unlocated"] += v["unlocated"]
            h["tests"] += v.get("tests", [])
    all_sites = sites()
    missed = [s for s in all_sites if f"{s['file']}:{s['line']}" not in hits]
    print(f"{len(all_sites)} sites, {len(all_sites) - len(missed)} reached, {len(missed)} not reached")
    for k, v in sorted(hits.items()):
        if v["unlocated"]:
            print(f"UNLOCATED {k} ({v['unlocated']} of {v['count']}) {' '.join(v['tests'][:3])}")
    known = classes()
    counts: dict[str, int] = {}
    for s in missed:
        cls, reason = known.get(s["key"], ("?", "not classified"))
        counts[cls] = counts.get(cls, 0) + 1
        print(f"MISSED [{cls}] {s['file']}:{s['line']}  {s['severity']}  {s['message']}  -- {reason}")
    print("not reached, by class: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    keys = {s["key"] for s in all_sites}
    for key in sorted(set(known) - keys):
        print(f"STALE CLASS {key} (no such site)")


def main(argv: list[str]) -> int:
    if argv[:1] == ["list"]:
        for s in sites():
            print(f"{s['file']}:{s['line']}\t{s['severity']}\t{s['message']}")
        return 0
    if argv[:1] == ["run"] and len(argv) >= 3 and argv[2] == "--":
        return run(argv[1], argv[3:])
    if argv[:1] == ["report"]:
        report(argv[1:])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
