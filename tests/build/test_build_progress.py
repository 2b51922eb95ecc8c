"""Progress output: a rewritten status line on terminals, plain lines elsewhere; the project lock."""

from __future__ import annotations

import io

import pytest

from shaderbuild.build.lock import LockBusy, ProjectLock
from shaderbuild.build.progress import Progress


def test_plain_lines_when_not_a_terminal():
    out = io.StringIO()
    p = Progress(2, out, tty=False)
    p.finished("a@spirv", True, 0.0123)
    p.message("a.hlsl:1:2: error: bad")
    p.finished("b@spirv", False)
    p.close()
    assert out.getvalue() == "[1/2] built  a@spirv (12 ms)\na.hlsl:1:2: error: bad\n[2/2] FAILED b@spirv (0 ms)\n"


def test_quiet_plain_output_still_shows_failures():
    out = io.StringIO()
    p = Progress(2, out, tty=False, quiet=True)
    p.finished("a", True)
    p.finished("b", False)
    assert out.getvalue() == "[2/2] FAILED b (0 ms)\n"


def test_terminal_status_line_is_rewritten_and_cleared_for_messages():
    out = io.StringIO()
    p = Progress(10, out, tty=True)
    p.finished("a", True)
    p.finished("b", False)
    p.message("error text")
    p.close()
    assert out.getvalue() == ("[ 1/10] a" "\r\x1b[K[ 2/10] 1 failed | b" "\r\x1b[Kerror text\n")


def test_terminal_shows_the_target_being_built():
    out = io.StringIO()
    p = Progress(2, out, tty=True)
    p.started("a")
    p.finished("a", True)
    p.started("b")
    assert out.getvalue() == "[0/2] building a\r\x1b[K[1/2] a\r\x1b[K[1/2] building b"
    plain = io.StringIO()
    Progress(2, plain, tty=False).started("a")
    assert plain.getvalue() == ""


def test_lock_is_exclusive_and_reentrant_after_release(tmp_path):
    first = ProjectLock(str(tmp_path))
    first.acquire()
    with pytest.raises(LockBusy, match=r"another shaderbuild \(pid \d+\)"):
        ProjectLock(str(tmp_path), wait=False).acquire()
    first.release()
    with ProjectLock(str(tmp_path), wait=False):
        pass
