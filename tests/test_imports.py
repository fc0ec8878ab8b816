"""The house: no import cycle between venncal's modules, and no module too long without a reason.

Imports are read from the source (module level only: imports inside functions run on first
use and cannot form a cycle at import time; imports under ``if TYPE_CHECKING`` never run). An
edge ``a -> b`` means that importing ``a`` imports ``b``. A cycle is a strongly connected
component of more than one module.
"""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
MAX_LINES = 700
REASON = "This module is long because"


def _name(path):
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in (SRC / "venncal").rglob("*.py")}


def _resolve(name):
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(body):
    for node in body:
        if isinstance(node, ast.If):
            if not _type_checking(node.test):
                yield from _statements(node.body)
                yield from _statements(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _statements(node.body)
            for handler in node.handlers:
                yield from _statements(handler.body)
            yield from _statements(node.orelse)
            yield from _statements(node.finalbody)
        else:
            yield node


def imports_of(name):
    """The venncal modules that importing ``name`` imports directly."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _statements(ast.parse(path.read_text()).body):
        if isinstance(node, ast.Import):
            found.update(_resolve(a.name) for a in node.names if a.name.startswith("venncal"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                module = base + (f".{node.module}" if node.module else "")
            else:
                module = node.module or ""
            if module.split(".")[0] != "venncal":
                continue
            for alias in node.names:
                full = f"{module}.{alias.name}"
                found.add(full if full in MODULES else _resolve(module))
    found.discard(None)
    found.discard(name)
    return found


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_sees_relative_and_absolute_imports():
    graph = {name: imports_of(name) for name in MODULES}
    assert "venncal.core.venn_abers" in graph["venncal.calibration.venn_abers"]
    assert "venncal._params" in graph["venncal._validation"]


def test_no_import_cycle():
    graph = {name: imports_of(name) for name in MODULES}
    assert cycles(graph) == []


def test_long_modules_say_why():
    long = []
    for name, path in MODULES.items():
        text = path.read_text()
        if text.count("\n") > MAX_LINES and REASON not in (
            ast.get_docstring(ast.parse(text)) or ""
        ):
            long.append(f"{name} ({text.count(chr(10))} lines)")
    assert not long, f"modules over {MAX_LINES} lines without '{REASON} ...': {long}"
