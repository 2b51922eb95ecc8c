"""`shaderbuild clean`: remove every output the build database knows, the index and the database."""

from __future__ import annotations

import os

from .cache import BuildDB, state_dir
from .config import Project
from .lock import ProjectLock
from .integration import PROGRAMS_FILE
from .report import INDEX_FILE


def clean(project: Project, *, wait: bool = True, on_wait=None) -> list[str]:
    """Returns the removed files.  Only paths inside the output directory are touched."""
    out = project.output_dir
    removed: list[str] = []
    if not os.path.isdir(out):
        return removed
    with ProjectLock(state_dir(out), wait=wait, on_wait=on_wait):
        db = BuildDB.load(out, project.root)
        paths = [db.abs(row[0]) for rec in db.targets.values() for row in rec["outputs"].values()]
        paths += [db.abs(p) for p in db.blobs] + [os.path.join(out, INDEX_FILE), os.path.join(out, PROGRAMS_FILE),
                                                  db.path]
        for path in paths:
            if not os.path.normpath(path).startswith(out + os.sep):
                continue
            try:
                os.unlink(path)
                removed.append(path)
            except FileNotFoundError:
                pass
        dirs = sorted({os.path.dirname(p) for p in removed}, key=len, reverse=True)
        for d in dirs:
            while d.startswith(out + os.sep) and d != state_dir(out):
                try:
                    os.rmdir(d)
                except OSError:
                    break
                d = os.path.dirname(d)
    return removed
