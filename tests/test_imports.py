"""The house: no import cycle between venncal's modules, and no module too long without a reason.

Imports are read from the source; imports under ``if TYPE_CHECKING`` never run. At import
time only module-level imports count (imports inside functions run on first use and cannot
form a cycle while the package loads): an edge ``a -> b`` means that importing ``a`` imports
``b``, and a cycle is a strongly connected component of more than one module. At run time the
imports inside functions count too, and no two modules may import each other (a pair that
does is one idea split in two rooms).
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


def _statements(body, *, run_time=False):
    for node in body:
        if run_time and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from _statements(node.body, run_time=True)
        elif run_time and isinstance(node, (ast.With, ast.AsyncWith, ast.For, ast.While)):
            yield from _statements(node.body, run_time=True)
            yield from _statements(getattr(node, "orelse", []), run_time=True)
        elif isinstance(node, ast.If):
            if not _type_checking(node.test):
                yield from _statements(node.body, run_time=run_time)
                yield from _statements(node.orelse, run_time=run_time)
        elif isinstance(node, ast.Try):
            for part in (node.body, node.orelse, node.finalbody):
                yield from _statements(part, run_time=run_time)
            for handler in node.handlers:
                yield from _statements(handler.body, run_time=run_time)
        else:
            yield node


def imports_of(name, *, run_time=False):
    """The venncal modules that importing ``name`` imports directly (``run_time``: or that
    its functions import when called)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _statements(ast.parse(path.read_text()).body, run_time=run_time):
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


def test_the_run_time_reader_sees_imports_inside_functions():
    source = "def f():\n    if x:\n        from venncal import _params\n"
    found = {type(node).__name__ for node in _statements(ast.parse(source).body, run_time=True)}
    assert "ImportFrom" in found
    assert "ImportFrom" not in {type(n).__name__ for n in _statements(ast.parse(source).body)}
    guarded = "def f():\n    if TYPE_CHECKING:\n        from venncal import _params\n"
    assert not list(_statements(ast.parse(guarded).body, run_time=True))[1:]


def test_no_two_modules_import_each_other_at_run_time():
    graph = {name: imports_of(name, run_time=True) for name in MODULES}
    pairs = sorted(
        {tuple(sorted((a, b))) for a in graph for b in graph[a] if a in graph.get(b, ())}
    )
    assert pairs == [], f"modules that import each other: {pairs}"


def test_long_modules_say_why():
    long = []
    for name, path in MODULES.items():
        text = path.read_text()
        if text.count("\n") > MAX_LINES and REASON not in (
            ast.get_docstring(ast.parse(text)) or ""
        ):
            long.append(f"{name} ({text.count(chr(10))} lines)")
    assert not long, f"modules over {MAX_LINES} lines without '{REASON} ...': {long}"
