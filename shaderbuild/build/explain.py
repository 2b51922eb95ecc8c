"""`shaderbuild explain TARGET`: the parts of a target's cache key and why it is (not) fresh."""

from __future__ import annotations

import json

from .cache import config_digest, key_parts
from .database import BuildDB
from .config import Project
from .deps import check, rescanner
from .files import FileState
from .targets import Target


def explain_data(project: Project, target: Target, db: BuildDB | None = None, fs: FileState | None = None) -> dict:
    db = db or BuildDB.load(project.output_dir, project.root)
    parts = key_parts(target, db.plugin_versions(), project.root, project.output_dir)
    cd = config_digest(parts)
    record = db.targets.get(target.tid)
    snapshot = json.loads(json.dumps(record)) if record else None   # check() refreshes stats in place
    status = check(snapshot, cd, parts, fs or FileState(project.root), explain=True, rescan=rescanner(target, db))
    return {
        "name": target.name,
        "id": target.tid,
        "key": record["key"] if record else None,
        "config_digest": cd,
        "parts": parts,
        "dependencies": [[row[0], row[4]] for row in record["deps"]] if record else [],
        "fresh": status.fresh,
        "reasons": status.reasons,
        "last_build_reasons": record.get("reason", []) if record else [],
    }


def explain_text(data: dict, root: str) -> str:
    p = data["parts"]
    opts = p["options"]
    lines = [
        f"target   {data['name']}",
        f"id       {data['id']}",
        f"key      {data['key'] or '(never built)'}",
        f"  config digest   {data['config_digest']}",
        f"  compiler        shaderbuild {p['compiler']}",
        f"  backend plugin  {p['plugin']}",
        f"  source          {p['source']}",
        "  options         " + ", ".join(f"{k}={v!r}" for k, v in sorted(opts.items()) if k != "defines"),
        "  defines         " + (" ".join(f"{k}={v}" for k, v in opts["defines"]) or "(none)"),
        "  outputs         " + ", ".join(f"{k}={v}" for k, v in p["outputs"].items()),
        f"  dependencies    {len(data['dependencies'])} file(s) read by the preprocessor on the last build",
    ]
    for path, sha in data["dependencies"]:
        lines.append(f"    {sha[:16]}  {path}")
    if data["fresh"]:
        lines.append("status   up to date: settings unchanged and every dependency and output matches its record")
    else:
        lines.append("status   would rebuild:")
        lines += [f"    - {r}" for r in data["reasons"]]
    if data["last_build_reasons"]:
        lines.append("last built because:")
        lines += [f"    - {r}" for r in data["last_build_reasons"]]
    return "\n".join(lines)


def explain(project: Project, targets: list[Target]) -> str:
    db = BuildDB.load(project.output_dir, project.root)
    fs = FileState(project.root)
    return "\n\n".join(explain_text(explain_data(project, t, db, fs), project.root) for t in targets)
