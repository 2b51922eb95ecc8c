"""What a build returns, and the checks run over the whole build database afterwards:
cross-backend resource agreement, identical outputs across permutations, and the
project-level index (JSON) of every target, its key and its outputs."""

from __future__ import annotations

import copy
import os
from collections import defaultdict

from ..records import DataRecord, Record
from . import json_text

INDEX_FILE = "index.json"
INDEX_FORMAT = "shaderbuild.index/1"


class BuildReport(DataRecord):
    built: list[str] = Record.factory(list)        # target names, in completion order
    up_to_date: list[str] = Record.factory(list)
    failed: list[str] = Record.factory(list)
    skipped: list[str] = Record.factory(list)      # not started after a failure (no --keep-going)
    reasons: dict[str, list[str]] = Record.factory(dict)   # why each built target was stale
    messages: list[str] = Record.factory(list)     # rendered diagnostics of failed targets
    diagnostics: dict[str, list[dict]] = Record.factory(dict)  # target -> Diagnostic.to_json() list
    mismatches: list[dict] = Record.factory(list)  # cross-backend resource disagreements
    duplicates: list[dict] = Record.factory(list)  # permutations with byte-identical outputs
    blobs: list[str] = Record.factory(list)        # blobs (re)written
    removed: list[str] = Record.factory(list)      # outputs of targets no longer in the project
    warnings: list[str] = Record.factory(list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed and not self.mismatches

    def to_json(self) -> dict:
        d = {f: copy.deepcopy(getattr(self, f)) for f in self._fields}   # as dataclasses.asdict: JSON data, copied
        d["ok"] = self.ok
        return d

    def summary(self) -> str:
        parts = [f"{len(self.built)} built", f"{len(self.up_to_date)} up to date"]
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        if self.skipped:
            parts.append(f"{len(self.skipped)} not started")
        if self.mismatches:
            parts.append(f"{len(self.mismatches)} backend mismatches")
        if self.duplicates:
            parts.append(f"{sum(len(d['permutations']) for d in self.duplicates)} permutations in "
                         f"{len(self.duplicates)} groups of identical outputs")
        return f"shaderbuild: {', '.join(parts)} in {self.seconds:.2f} s"


def cross_backend_mismatches(targets, records: dict[str, dict]) -> list[dict]:
    """Targets built for several backends must declare the same resources (name + HLSL binding)."""
    by_variant: dict[str, list] = defaultdict(list)
    for t in targets:
        rec = records.get(t.tid)
        if rec is not None and rec.get("resources") is not None:
            by_variant[t.variant].append((t, rec["resources"]))
    out = []
    for variant, items in sorted(by_variant.items()):
        if len(items) < 2:
            continue
        ref_t, ref = items[0]
        for t, res in items[1:]:
            if res != ref:
                a = {r[0]: r[1] for r in ref}
                b = {r[0]: r[1] for r in res}
                diffs = [f"{n}: {ref_t.backend}={a.get(n)} {t.backend}={b.get(n)}"
                         for n in sorted(set(a) | set(b)) if a.get(n) != b.get(n)]
                out.append({"variant": variant, "backends": [ref_t.backend, t.backend], "differences": diffs})
    return out


def identical_outputs(targets, records: dict[str, dict]) -> list[dict]:
    """Permutations of one shader entry and backend whose binaries are byte-identical."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for t in targets:
        rec = records.get(t.tid)
        if rec is not None and t.perm_key:
            groups[(t.group, rec["outputs"]["binary"][4])].append(t.perm_key)
    return [{"shader": g, "sha256": sha, "permutations": sorted(keys)}
            for (g, sha), keys in sorted(groups.items()) if len(keys) > 1]


def index_document(targets, records: dict[str, dict], root: str, output_dir: str,
                   blobs: dict[str, list[str]]) -> dict:
    """Paths in the index are relative to the output directory."""
    def rel(p: str) -> str:
        full = os.path.join(root, p)
        prefix = output_dir + os.sep
        return full[len(prefix):] if full.startswith(prefix) else os.path.relpath(full, output_dir)

    rows = []
    for t in sorted(targets, key=lambda t: t.name):
        rec = records.get(t.tid)
        if rec is None:
            continue
        rows.append({
            "name": t.name, "id": t.tid, "source": t.rel, "entry": t.entry, "backend": t.backend,
            "profile": t.options.profile, "permutation": t.perm_key, "key": rec["key"],
            "outputs": {k: rel(v[0]) for k, v in sorted(rec["outputs"].items())},
            "blob": rel(t.blob) if t.blob else None,
        })
    return {"format": INDEX_FORMAT, "targets": rows,
            "blobs": {rel(p): sorted(keys) for p, keys in sorted(blobs.items())}}


def index_bytes(doc: dict) -> bytes:
    return (json_text.dumps(doc, 1) + "\n").encode("utf-8")
