"""The walk shared by the tests' recursive equality assertions: containers part by part."""

import dataclasses


def assert_parts_same(a, b, where, same):
    """Compare ``a`` with ``b`` part by part by ``same(part_a, part_b, where)`` when ``a`` is a
    container (an instance of a dataclass, a list, a tuple or a dict: the same dataclass, as many
    items, the same keys) and return True; return False for anything else, left to the caller.
    ``where`` names the value in the messages (``where.field``, ``where[i]``, ``where[key]``)."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, z) in enumerate(zip(a, b)):
            same(x, z, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    else:
        return False
    return True
