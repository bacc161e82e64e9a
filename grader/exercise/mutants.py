"""Mutant files: a whole ``mutants/<name>.py``, or a ``mutants/<name>.diff`` against ``reference.py``.

A diff is applied when the exercise loads (a hunk that does not apply is reported, with the
line it expected), and its result is the mutant's source from then on. Where a file is needed
(``Exercise.mutant_paths``), the patched source is written once to this process's own temporary
folder.
"""

from __future__ import annotations

import atexit
import hashlib
import shutil
import tempfile
import threading
from pathlib import Path

from grader.exercise.patches import PatchError, apply_diff


def mutant_file(folder: Path, name: str) -> Path:
    """The mutant's own file in an exercise folder: ``mutants/<name>.py``, or else ``mutants/<name>.diff``."""
    whole = folder / "mutants" / f"{name}.py"
    diff = whole.with_suffix(".diff")
    return diff if diff.is_file() and not whole.is_file() else whole


def mutant_source(folder: Path, name: str) -> str:
    """A mutant's whole source, its exercise not loaded: its ``.py``, or ``reference.py`` with its ``.diff`` applied."""
    file = mutant_file(folder, name)
    text = file.read_text(encoding="utf-8")
    if file.suffix == ".py":
        return text
    return apply_diff((folder / "reference.py").read_text(encoding="utf-8"), text, name="reference.py")


def load_mutants(path: Path, reference: str, problems: list[str]) -> dict[str, str]:
    """Each mutant's whole source: a ``.py`` file's text, or ``reference`` (read already) with a ``.diff`` applied."""
    folder = path / "mutants"
    if not folder.is_dir():
        return {}
    sources: dict[str, str] = {}
    for file in sorted(folder.glob("*.py")):
        sources[file.stem] = file.read_text(encoding="utf-8")
        check_compiles(sources[file.stem], f"mutants/{file.name}", problems)
    for file in sorted(folder.glob("*.diff")):
        name = file.stem
        if name in sources:
            problems.append(f"mutants/{name}.py, mutants/{name}.diff: two files for one mutant (keep one)")
            continue
        try:
            sources[name] = apply_diff(reference, file.read_text(encoding="utf-8"), name="reference.py")
        except PatchError as exc:
            problems.append(f"mutants/{name}.diff: {exc}")
            continue
        check_compiles(sources[name], f"mutants/{name}.diff (applied to reference.py)", problems)
    return sources


def check_compiles(source: str, name: str, problems: list[str]) -> None:
    """Report ``source`` (the file ``name``) in ``problems`` if it is not valid Python."""
    try:
        compile(source, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        problems.append(f"{name}, line {exc.lineno}: {exc.msg}")


_patched_lock = threading.Lock()
_patched_folders: list[Path] = []


def patched_file(slug: str, name: str, source: str) -> Path:
    """A file holding ``source`` (a mutant written as a diff, applied), in this process's own temporary folder."""
    with _patched_lock:
        if not _patched_folders:
            made = Path(tempfile.mkdtemp(prefix="mlkata-mutants-"))  # private (0700): trusted code is run from it
            atexit.register(shutil.rmtree, made, ignore_errors=True)
            _patched_folders.append(made)
        digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
        file = _patched_folders[0] / slug / digest / f"{name}.py"
        if not file.is_file():
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(source, encoding="utf-8")
        return file
