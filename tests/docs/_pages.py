"""Run a page's ```python blocks as a reader who pastes them in order would.

Used by ``test_code_blocks.py``, in the test's process or, for a page that starts a process-wide
service (a Spark session), in a fresh Python process: ``python -m tests.docs._pages PAGE``.
"""

import ast
import builtins
import re
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```(python|\{code-block\} python)[^\n]*\n(.*?)^```", re.S | re.M)


def page_blocks(page):
    """The Python blocks of ``page`` (a path), in order, as ``(run, code)`` pairs: ```python
    blocks run; ``{code-block} python`` blocks (another package's code, shown for comparison)
    do not, but the names they read must be defined by then (``run_page``)."""
    text = Path(page).read_text(encoding="utf-8")
    return [(fence == "python", code) for fence, code in BLOCK.findall(text)]


def _names(code):
    """The names ``code`` binds and the names it reads."""
    tree = ast.parse(code)
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound, read - set(dir(builtins))


def kind(value):
    """What kind of data ``value`` holds, or None for anything that is not an array of data:
    the container, the number of dimensions, numbers or labels, the number of columns of a
    matrix, and the number of classes of a vector of labels."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(value, (pd.DataFrame, pd.Series)):
        return (type(value).__name__, value.ndim, value.shape[1] if value.ndim == 2 else None)
    if not isinstance(value, np.ndarray) or value.ndim == 0:
        return None
    numbers = value.dtype.kind in "fc"
    out = ["array", value.ndim, "numbers" if numbers else "labels"]
    if value.ndim >= 2:
        out.append(value.shape[1:])
    elif not numbers and value.size:
        out.append(f"{len(np.unique(value))} classes")
    return tuple(out)


def _describe(k):
    return ", ".join(str(part) for part in k)


def run_page(name, blocks):
    """Run ``blocks`` (``(run, code)`` pairs) in order in one fresh namespace, one top-level
    statement at a time; a block not to run is only checked for names read before the page
    defines them.

    Returns None when every statement ran, else one line that says where and why it failed: an
    exception (a name used before the page defines it is a NameError, as for a reader), or a
    name that held an array of one kind of data and is rebound to another kind (binary and
    multiclass labels, a different number of columns or dimensions), which breaks a reader's
    code that still expects the first.
    """
    namespace = {"__name__": "__main__"}
    try:
        return _run(name, blocks, namespace)
    finally:
        client = namespace.get("client")  # a Dask client the page started
        if client is not None and hasattr(client, "close"):
            client.close()


def _run(name, blocks, namespace):
    kinds, seen = {}, {}
    shown = set()  # the names bound by the blocks not run
    for i, (run, code) in enumerate(blocks, 1):
        where = f"{name}, block {i}"
        try:
            tree = ast.parse(code, where)
        except SyntaxError as exc:
            return f"{where}: SyntaxError: {exc}"
        if not run:
            bound, read = _names(code)
            missing = sorted(read - bound - shown - set(namespace))
            shown |= bound
            if missing:
                return f"{where} (not run): names used before the page defines them: {missing}"
            continue
        for statement in tree.body:
            line = f"{where}, line {statement.lineno}"
            module = ast.Module(body=[statement], type_ignores=[])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    exec(compile(module, where, "exec"), namespace)
                except NameError as exc:
                    return f"{line}: a name used before the page defines it: {exc}"
                except Exception as exc:
                    return f"{line}: {type(exc).__name__}: {exc}"
            for var, value in namespace.items():
                if var.startswith("_") or seen.get(var) is value:
                    continue
                seen[var] = value
                now = kind(value)
                if now is None:
                    continue
                before = kinds.get(var)
                if before is not None and before != now:
                    return (
                        f"{line}: `{var}` held ({_describe(before)}) and now holds "
                        f"({_describe(now)}): give the other data another name"
                    )
                kinds[var] = now
    return None


def main(argv):
    """``python -m tests.docs._pages PAGE``: run the page, print its failure, exit 1 on one."""
    page = Path(argv[0])
    import matplotlib

    matplotlib.use("Agg")
    failure = run_page(page.name, page_blocks(page))
    if failure is not None:
        print(failure)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
