"""Trees stored as arrays, walked one row and one node at a time (the definition)."""


def decision(trees, X):
    out = []
    for row in X:
        total = 0.0
        for root in trees.roots:
            node = int(root)
            while trees.feature[node] >= 0:
                f = int(trees.feature[node])
                node = int(
                    trees.left[node] if row[f] <= trees.threshold[node] else trees.right[node]
                )
            total += float(trees.value[node])
        out.append(total)
    return out
