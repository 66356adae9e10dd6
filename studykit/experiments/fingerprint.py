"""An experiment's code as one digest, read from its source files (nothing is imported).

A recorded run is reused only while the code that made it is unchanged: the digest covers
the module that defines the experiment's run function and every module of its package it
imports, directly or through another (an import inside a function counts too).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from functools import cache
from pathlib import Path

from studykit.experiments.base import Experiment

PACKAGE = "studykit.experiments"


def _source_file(module: str, package: str) -> Path | None:
    """`module`'s source file, found under `package`'s folder without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    parts = module.split(".")[len(package.split(".")) :]
    for candidate in (
        folder.joinpath(*parts).with_suffix(".py"),
        folder.joinpath(*parts, "__init__.py"),
    ):
        if parts and candidate.is_file():
            return candidate
    return folder / "__init__.py" if not parts else None


def _imported(tree: ast.Module, module: str, package: str) -> set[str]:
    """The modules of `package` that `module`'s source imports, by absolute name."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: counted from the importing module's package
                parent = module.rsplit(".", node.level)[0]
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name == package or name.startswith(package + ".")}


@cache
def module_digest(module: str, package: str = PACKAGE) -> str:
    """A digest of `module`'s source and of every `package` module it imports, transitively."""
    digest = hashlib.sha256()
    seen: set[str] = set()
    waiting = [module]
    while waiting:
        name = waiting.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _source_file(name, package)
        if path is None:
            continue  # a package attribute (`from pkg import name`), not a module
        source = path.read_bytes()
        digest.update(f"{name}\0{len(source)}\0".encode())
        digest.update(source)
        tree = ast.parse(source, filename=str(path))
        waiting.extend(sorted(_imported(tree, name, package) - seen, reverse=True))
    return digest.hexdigest()


def code_digest(experiment: Experiment) -> str:
    """The digest of the code that runs `experiment` (its run function's module and more)."""
    module = getattr(experiment.run, "__module__", None) or PACKAGE
    package = PACKAGE if module.startswith(PACKAGE + ".") else module.rsplit(".", 1)[0]
    return module_digest(module, package)
