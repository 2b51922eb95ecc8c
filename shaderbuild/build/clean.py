"""`shaderbuild clean`: remove every output the build database knows, the index, the database
and the lock file (the `.shaderbuild` directory goes when empty)."""

from __future__ import annotations

import os

from . import confine
from .cache import state_dir
from .config import Project
from .database import BuildDB
from .integration import PROGRAMS_FILE
from .lock import ProjectLock
from .report import INDEX_FILE


def clean(project: Project, *, wait: bool = True, on_wait=None) -> list[str]:
    """Returns the removed files.  Only paths inside the output directory are touched, never
    through a symbolic link below it (confine.OutsideOutputDir)."""
    out = project.output_dir
    removed: list[str] = []
    if not os.path.isdir(out):
        return removed
    state = state_dir(out)
    with ProjectLock(state, wait=wait, on_wait=on_wait) as lock:
        db = BuildDB.load(out, project.root)
        paths = [db.abs(row[0]) for rec in db.targets.values() for row in rec["outputs"].values()]
        paths += [db.abs(p) for p in db.blobs] + [os.path.join(out, INDEX_FILE), os.path.join(out, PROGRAMS_FILE)]
        for path in paths:
            if not os.path.normpath(path).startswith(out + os.sep):
                continue
            if confine.unlink(out, path):     # refuses a path through a symbolic link
                removed.append(path)
        removed += db.remove()
        try:
            # A build waiting for this lock finds its file gone and locks a new one (lock.py).
            os.unlink(lock.path)
            removed.append(lock.path)
        except FileNotFoundError:
            pass
        dirs = sorted({os.path.dirname(p) for p in removed}, key=len, reverse=True)
        for d in dirs:
            while d.startswith(out + os.sep):
                try:
                    os.rmdir(d)
                except OSError:
                    break
                d = os.path.dirname(d)
    return removed
