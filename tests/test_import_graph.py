"""The package's import graph has no cycle: data flows one way between its modules.

Every ``import`` statement of every module counts — module level, inside functions, and under
``if TYPE_CHECKING:`` — so no module reaches back up, not even for a type annotation. The graph
is read from the source (no module is imported), so the check also covers modules that only
import lazily.
"""

import ast
from pathlib import Path

import pytest

import isaaclab_contrib

PACKAGE_DIR = Path(isaaclab_contrib.__file__).resolve().parent
ROOT_NAME = "isaaclab_contrib"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules *name* imports anywhere in its source."""
    is_package = path.name == "__init__.py"
    base = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                module = ".".join([*anchor, node.module] if node.module else anchor)
            else:
                module = node.module or ""
            # "from pkg import sub" imports the submodule pkg.sub when there is one.
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_sees_lazy_and_type_only_imports():
    graph = import_graph()
    # A function-level import and a TYPE_CHECKING import are both edges.
    assert "isaaclab_contrib.physics.runtime.simulation_instance" in graph
    assert "isaaclab_contrib.physics.runtime.build_request" in graph["isaaclab_contrib.physics.runtime.session"]
    assert "isaaclab_contrib.physics.solvers.binding" in graph["isaaclab_contrib.physics.runtime.simulation_instance"]


def test_cycle_finder_finds_a_planted_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("root", [ROOT_NAME])
def test_no_import_cycle_in_the_package(root):
    found = cycles(import_graph())
    assert not found, f"import cycles in {root}: {found}"
