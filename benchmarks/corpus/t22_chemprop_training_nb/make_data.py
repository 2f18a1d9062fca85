"""Lipophilicity-like stand-in for chemprop's examples/training.ipynb (run with the recipe's python: rdkit, numpy).

- RUN/tests/data/regression/mol/mol.csv: the notebook reads chemprop_dir / tests/data/regression/mol/mol.csv
  (chemprop_dir = the notebook folder's parent = the run folder), columns smiles,lipo as in the repository's file.
  N seeded drug-like molecules assembled from ring, linker and substituent fragments (RDKit-checked, canonical
  SMILES, 12-45 heavy atoms, ~27 on average like MoleculeNet's Lipophilicity), lipo = a scaled Crippen logP plus
  noise (range ~-1.5..4.5 like the real set).
"""
import sys
from pathlib import Path

import numpy as np

N = 2000
RINGS = ["c1ccc({})cc1", "c1ccc(Cl)c({})c1", "c1cc({})ccn1", "c1ccc2[nH]c({})cc2c1", "C1CCN({})CC1",
         "C1CN({})CCO1", "c1csc({})c1", "c1ccc(F)cc1{}", "C1CCC({})CC1", "c1cnc({})nc1", "c1ccc2c(c1)ccc({})n2",
         "C1CCN({})C1", "c1cc(OC)c(OC)cc1{}", "c1coc({})c1", "N1CCN({})CC1", "c1ccc(C(F)(F)F)cc1{}"]
LINKERS = ["", "C", "CC", "C(=O)N", "NC(=O)", "O", "N", "S(=O)(=O)N", "C(=O)O", "OC", "C(=O)", "CN", "C=C",
           "NC(=O)N", "C(C)", "CCO"]
ENDS = ["", "C", "Cl", "F", "OC", "C(=O)O", "N", "O", "C#N", "C(F)(F)F", "CC", "N(C)C", "C(N)=O", "S(C)(=O)=O"]


def molecule(rng: np.random.Generator) -> str:
    smi = ENDS[rng.integers(len(ENDS))]
    for level in range(int(rng.integers(1, 5))):  # own ring-closure digits at each nesting level
        ring = RINGS[rng.integers(len(RINGS))].replace("1", "a").replace("2", "b")
        ring = ring.replace("a", str(2 * level + 1)).replace("b", str(2 * level + 2))
        smi = ring.format(LINKERS[rng.integers(len(LINKERS))] + smi)
    return smi


def write_csv(path: Path, n: int, seed: int = 0) -> None:
    from rdkit import Chem, RDLogger
    from rdkit.Chem import Crippen

    RDLogger.DisableLog("rdApp.*")
    rng = np.random.default_rng(seed)
    rows, seen = [], set()
    while len(rows) < n:
        mol = Chem.MolFromSmiles(molecule(rng))
        if mol is None or not 12 <= mol.GetNumHeavyAtoms() <= 45:
            continue
        smi = Chem.MolToSmiles(mol)
        if smi in seen:
            continue
        seen.add(smi)
        lipo = 0.6 * Crippen.MolLogP(mol) + 0.3 + rng.normal(0, 0.6)
        rows.append(f"{smi},{float(np.clip(lipo, -1.5, 4.5)):.2f}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("smiles,lipo\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    write_csv(Path(sys.argv[1]) / "tests" / "data" / "regression" / "mol" / "mol.csv", N)
