"""The house keeps its layers: no import circles, and nothing imports a front end.

The layers are those of DESIGN.md: values and tables, the engine, the tools on the engine's
public API, and the front ends. Every import of the package is read from the source (imports
inside functions too), so a circle cannot hide behind a late import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "yaniv"

#: The layer of each top-level module or subpackage, lowest first.
LAYERS = {
    "errors": 1,
    "cards": 1,
    "rules": 1,
    "moves": 1,
    "discards": 1,
    "compiled": 1,
    "state": 2,
    "scoring": 2,
    "events": 2,
    "view": 2,
    "game": 2,
    "record": 2,
    # Play-outs reach into the engine's seeded shuffle and the compiled core: engine layer.
    "playout": 2,
    "bots": 3,
    "protocol": 3,
    "arena": 3,
    "arena_ray": 3,
    "arena_journal": 3,
    "scenarios": 3,
    "session": 3,
    "narration": 3,
    "search": 3,
    "cli": 4,
    "arena_cli": 4,
    "tui": 4,
    "server": 4,
    "envs": 4,
}
FRONT_ENDS = {name for name, layer in LAYERS.items() if layer == 4}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The yaniv modules ``path`` imports, resolved to dotted names."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "yaniv")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "yaniv":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                # `from . import record` imports a module; `from .game import Game`, a name;
                # `from . import _core`, the compiled module (its types in a .pyi beside it).
                where = PACKAGE.parent / sub.replace(".", "/")
                is_module = where.with_suffix(".py").exists() or where.with_suffix(".pyi").exists()
                found.add(sub if is_module else target)
    found.discard(here)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {t for t in imports_of(path) if t in modules} for name, path in modules.items()}


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_module_has_a_layer() -> None:
    missing = {top(m) for m in graph() if top(m) and top(m) not in LAYERS}
    assert not missing, f"give these modules a layer in DESIGN.md and here: {sorted(missing)}"


def test_there_is_no_import_circle() -> None:
    edges = graph()
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                circle = path[path.index(nxt) :] + [nxt]
                pytest.fail("import circle: " + " -> ".join(circle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)


def test_no_module_imports_a_higher_layer_or_another_front_end() -> None:
    wrong = []
    for module, targets in graph().items():
        mine = top(module)
        if not mine:
            continue
        for target in targets:
            theirs = top(target)
            if not theirs or theirs == mine:
                continue
            # The root command (cli) registers the other front ends' commands; no other
            # front end imports another.
            if (LAYERS[theirs] > LAYERS[mine] and mine != "cli") or (
                mine in FRONT_ENDS and theirs in FRONT_ENDS and mine != "cli"
            ):
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)
