"""A regular (non-editable) install of this tree in a throwaway venv, for the cold-start rows.

README.md installs with `pip install ./ ./plugins/spirv ./plugins/dxil`: pip builds a wheel of each
distribution, unpacks it into site-packages, byte-compiles it and writes the console script.  An
editable install (the development venv) is slower to start: its `site` runs setuptools' editable
finders, which import `pathlib`, `urllib`, `ipaddress`...  So the benchmarks time a copy installed
the way users get it: pip itself installs the three wheels into a new venv with no network
(`--no-deps --no-index`; the compile and build paths import no third-party package).  The wheels
come from `pip wheel --no-build-isolation` with the running interpreter's setuptools; a setuptools
without `bdist_wheel` (older than 70.1 and no `wheel` package) gets a wheel zipped here from
setuptools' own `build_py` and `egg_info` output, the files `bdist_wheel` would pack.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = ("", "plugins/spirv", "plugins/dxil")      # README.md: pip install ./ ./plugins/spirv ./plugins/dxil


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr[-2000:]}")


def _copy_source(src: Path, tree: Path) -> None:
    """The distribution's sources without the checkout's hidden entries, earlier builds (a stale
    build/lib would go into the wheel), egg-info or nested distributions."""
    tree.mkdir(parents=True)
    for entry in src.iterdir():
        if entry.name.startswith(".") or entry.name in ("build", "dist", "plugins") or entry.name.endswith(".egg-info"):
            continue
        if entry.is_dir():
            shutil.copytree(entry, tree / entry.name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(entry, tree / entry.name)


def _zip_wheel(tree: Path, work: Path, out: Path) -> None:
    """One py3-none-any wheel of the distribution in `tree`, from setuptools' build_py and egg_info."""
    lib = work / "lib"
    _run([sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py", "-d", str(lib),
          "egg_info", "-e", str(work)], cwd=tree)
    egg = next(work.glob("*.egg-info"))
    meta = dict(line.split(": ", 1) for line in (egg / "PKG-INFO").read_text().splitlines()[:3] if ": " in line)
    name, version = meta["Name"].replace("-", "_"), meta["Version"]
    info = f"{name}-{version}.dist-info"
    files = {str(p.relative_to(lib)): p.read_bytes() for p in sorted(lib.rglob("*")) if p.is_file()}
    files[f"{info}/METADATA"] = (egg / "PKG-INFO").read_bytes()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: shaderbuild-bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    if (egg / "entry_points.txt").exists():
        files[f"{info}/entry_points.txt"] = (egg / "entry_points.txt").read_bytes()
    record = [f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}"
              for path, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    with zipfile.ZipFile(out / f"{name}-{version}-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)


def build_wheels(root: Path, out: Path, work: Path) -> str:
    """The three wheels of the tree at `root` in `out`, each built from a clean copy of its
    sources; returns how they were built."""
    how = set()
    for i, src in enumerate(DISTRIBUTIONS):
        tree = work / str(i) / "src"
        _copy_source(root / src, tree)
        try:
            _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                  "-w", str(out), str(tree)])
            how.add("pip wheel")
        except RuntimeError:
            _zip_wheel(tree, work / str(i), out)
            how.add("setuptools build_py + egg_info, zipped")
    return ", ".join(sorted(how))


def install(dest: Path, root: Path = ROOT) -> tuple[Path, str]:
    """A venv at `dest` with the tree at `root` installed by pip (byte-compiled); returns its `shaderbuild`
    console script and a line saying what was installed."""
    wheels, work = dest / "wheels", dest / "work"
    wheels.mkdir(parents=True)
    how = build_wheels(root, wheels, work)
    venv.create(dest / "venv", with_pip=False)
    python = dest / "venv" / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
          *map(str, sorted(wheels.glob("*.whl")))])
    shutil.rmtree(work, ignore_errors=True)
    script = dest / "venv" / "bin" / "shaderbuild"
    return script, f"installed copy: `pip install` of {root}'s wheels ({how}) in a new venv, {script}"
