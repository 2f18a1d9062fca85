"""Fake MUTAG for pytorch_geometric's examples/mutag_gin.py.

The script opens TUDataset(<script dir>/../data/TU, name='MUTAG'), which finds RUN/data/TU/MUTAG/raw and
processes it instead of downloading: the TU text format (MUTAG_A.txt, MUTAG_graph_indicator.txt,
MUTAG_graph_labels.txt, MUTAG_node_labels.txt, MUTAG_edge_labels.txt; 1-based node ids, comma-separated).
MUTAG's sizes: 188 molecule-like graphs of 10-28 nodes (mean ~18), a spanning tree plus a few ring-closing
bonds (~20 bonds a graph, each written in both directions), 7 node labels, 4 edge labels, graph labels 1 / -1
(125 / 63) that depend on the node-label mix, so they can be learned. The script trains on 169 of them
(2 batches of at most 128) and tests on 19.
"""
import sys
from pathlib import Path

import numpy as np


def tu_molecules(raw: Path, name: str = "MUTAG", n_graphs: int = 188, seed: int = 0) -> None:
    raw.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    edges, indicator, node_labels, edge_labels, graph_labels = [], [], [], [], []
    first = 1
    for g in range(n_graphs):
        n = int(rng.integers(10, 29))
        labels = rng.choice(7, size=n, p=[0.6, 0.1, 0.15, 0.05, 0.04, 0.03, 0.03])
        bonds = {(int(rng.integers(0, i)), i) for i in range(1, n)}  # a random tree
        while len(bonds) < n - 1 + max(1, n // 8):  # plus ring closures
            a, b = sorted(int(v) for v in rng.choice(n, size=2, replace=False))
            bonds.add((a, b))
        for a, b in sorted(bonds):
            lab = int(rng.choice(4, p=[0.5, 0.35, 0.1, 0.05]))
            for u, v in ((a, b), (b, a)):
                edges.append(f"{first + u}, {first + v}")
                edge_labels.append(str(lab))
        indicator += [str(g + 1)] * n
        node_labels += [str(int(x)) for x in labels]
        score = (labels == 1).mean() + (labels == 2).mean() + 0.1 * rng.standard_normal()
        graph_labels.append("1" if score > 0.2 else "-1")
        first += n
    for suffix, lines in (("A", edges), ("graph_indicator", indicator), ("graph_labels", graph_labels),
                          ("node_labels", node_labels), ("edge_labels", edge_labels)):
        (raw / f"{name}_{suffix}.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    tu_molecules(Path(sys.argv[1]) / "data" / "TU" / "MUTAG" / "raw")
