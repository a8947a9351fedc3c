"""Every third-party module the project imports is provided by a dependency ``pyproject.toml`` declares.

A module that is importable here only because somebody installed it by hand does not exist on a fresh
machine (CI makes a fresh virtual environment), so the check reads the imports of the package, ``configs/``,
``scripts/`` and ``tests/`` from their source, maps each top-level module to the distribution that installed
it, and requires that distribution to be declared directly: in ``[project] dependencies`` or in one of our
extras. A distribution that only comes along with another package (``scipy`` with nothing, ``tensordict``
with ``rsl-rl-lib``) can disappear when that package changes its own requirements.

Some modules are never imported by our code but are needed at run time by a library we call:
:data:`RUNTIME_NEEDS` names them and why, and they must be declared and importable too.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import re
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("isaaclab_contrib", "configs", "scripts", "tests")

RUNTIME_NEEDS: dict[str, str] = {
    "scipy": "trimesh's convex hulls: Newton remeshes robot collision meshes with method='convex_hull'",
    "trimesh": "Newton's URDF / MJCF importers and newton.Mesh.create_from_file read mesh files with it",
    "collada": "COLLADA (.dae) visual meshes of URDF robots (pycollada)",
}
"""Modules a library we call imports on our behalf (module -> why); they must be declared and installed."""


def _normalize(name: str) -> str:
    """A distribution name as packaging compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_distributions(pyproject: Path = ROOT / "pyproject.toml") -> set[str]:
    """Normalized names of the distributions ``pyproject.toml`` declares (dependencies and every extra)."""
    project = tomllib.loads(pyproject.read_text())["project"]
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements.extend(extra)
    names = set()
    for requirement in requirements:
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        assert match, f"pyproject.toml: cannot read the requirement {requirement!r}"
        names.add(_normalize(match.group(1)))
    return names


def local_modules(root: Path = ROOT) -> set[str]:
    """Top-level names that resolve to this repository: our packages, the scripts and the test helpers."""
    names = {"isaaclab_contrib", "isaaclab_coupling_configs"}
    for folder in ("scripts", "tests"):
        names.update(path.stem for path in (root / folder).glob("*.py"))
    return names


def imported_modules(files: Iterable[Path]) -> dict[str, set[str]]:
    """Top-level modules imported by absolute ``import`` statements in *files* -> the files importing them."""
    found: dict[str, set[str]] = {}
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                found.setdefault(module.split(".")[0], set()).add(str(path))
    return found


def undeclared(
    modules: Iterable[str],
    declared: set[str],
    local: set[str],
    providers: dict[str, list[str]] | None = None,
) -> dict[str, str]:
    """The third-party *modules* no declared distribution provides -> why (not installed, or its distribution)."""
    providers = importlib.metadata.packages_distributions() if providers is None else providers
    problems = {}
    for module in sorted(set(modules)):
        if module in sys.stdlib_module_names or module in local:
            continue
        distributions = providers.get(module)
        if not distributions:
            problems[module] = "no installed distribution provides it"
        elif not declared & {_normalize(d) for d in distributions}:
            problems[module] = f"provided by {sorted(distributions)}, none of which pyproject.toml declares"
    return problems


def _source_files() -> list[Path]:
    return sorted(path for folder in SOURCE_DIRS for path in (ROOT / folder).rglob("*.py"))


def test_every_imported_third_party_module_is_declared():
    imports = imported_modules(_source_files())
    assert {"warp", "newton", "torch", "pxr", "rsl_rl"} <= set(imports)  # the scan sees the real imports
    problems = undeclared(imports, declared_distributions(), local_modules())
    assert not problems, "declare these in pyproject.toml:\n" + "\n".join(
        f"  {module}: {why} (imported by {sorted(imports[module])[:3]})" for module, why in problems.items()
    )


def test_runtime_needs_of_the_libraries_we_call_are_declared_and_installed():
    problems = undeclared(RUNTIME_NEEDS, declared_distributions(), set())
    assert not problems, "declare these in pyproject.toml:\n" + "\n".join(
        f"  {module} ({RUNTIME_NEEDS[module]}): {why}" for module, why in problems.items()
    )
    for module in RUNTIME_NEEDS:
        assert importlib.util.find_spec(module) is not None, module


def test_the_check_finds_a_module_nobody_declares(tmp_path):
    source = tmp_path / "uses.py"
    source.write_text("import os\nimport numpy as np\nfrom scipy.spatial import ConvexHull\nimport helper\n")
    imports = imported_modules([source])
    assert set(imports) == {"os", "numpy", "scipy", "helper"}
    providers = {"numpy": ["numpy"], "scipy": ["scipy"]}
    problems = undeclared(imports, {"numpy"}, {"helper"}, providers)
    assert set(problems) == {"scipy"} and "scipy" in problems["scipy"]
    # A module that only comes along with a declared distribution is not enough, and nor is a missing one.
    problems = undeclared(["tensordict", "meshio"], {"rsl-rl-lib"}, set(), {"tensordict": ["tensordict"]})
    assert problems == {
        "tensordict": "provided by ['tensordict'], none of which pyproject.toml declares",
        "meshio": "no installed distribution provides it",
    }


def test_declared_names_are_read_with_versions_markers_and_extras(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[project]\nname = "x"\ndependencies = ["newton[sim]==1.8.0", "Warp_Lang>=1.19", "scipy ; python_version>\'3\'"]\n'
        '[project.optional-dependencies]\ntest = ["pytest>=8"]\n'
    )
    assert declared_distributions(pyproject) == {"newton", "warp-lang", "scipy", "pytest"}
