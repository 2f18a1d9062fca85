"""Heart Cell Atlas (hca_subsampled_20k.h5ad) stand-in for scverse/scvi-tutorials' quick_start/api_overview.ipynb
(run with the corpus-t23-A python: anndata, scipy, pandas, numpy).

- RUN/quick_start/hca_subsampled_20k.h5ad: the file scvi.data.heart_cell_atlas_subsampled() reads (its _download
  skips the download when the file is already in save_path; the recipe's save_dir edit copies it into the notebook's
  temporary save_dir). An AnnData of raw UMI counts (CSR float32, like the real file) for N_CELLS cells x N_GENES
  genes instead of 18641 (after the loader drops doublets / NotAssigned) x 26662, with the obs columns the notebook
  and the loader use, as categoricals / floats like the real file: cell_type (the atlas' 11 types plus a few
  "doublets" and "NotAssigned" cells, which the loader removes), cell_source (Harvard-Nuclei, Sanger-Nuclei,
  Sanger-Cells, Sanger-CD45), donor (14 donors D1..D11, H2..H7 style names), percent_mito, percent_ribo, plus
  n_counts, n_genes, gender, region, sample, type; var n_counts. Counts: negative binomial (dispersion theta 0.5-5)
  around log-normal gene means, scaled by a cell-type marker program (~60 up-regulated genes per type), a
  per-source library size (nuclei ~1.2k, cells ~4k UMIs median) and a donor factor: ~90% zeros, enough structure
  for seurat_v3 HVG selection, UMAP, Leiden and the DE cells to behave. Seeded.
"""
import sys
from pathlib import Path

import numpy as np

N_CELLS = 4000      # before the loader removes ~2% doublets / NotAssigned
N_GENES = 8000
TYPES = ["Adipocytes", "Atrial_Cardiomyocyte", "Endothelial", "Fibroblast", "Lymphoid", "Mesothelial", "Myeloid",
         "Neuronal", "Pericytes", "Smooth_muscle_cells", "Ventricular_Cardiomyocyte", "doublets", "NotAssigned"]
TYPE_P = [0.01, 0.10, 0.20, 0.17, 0.04, 0.005, 0.08, 0.01, 0.15, 0.05, 0.165, 0.01, 0.01]
SOURCES = ["Harvard-Nuclei", "Sanger-CD45", "Sanger-Cells", "Sanger-Nuclei"]
SOURCE_P = [0.45, 0.05, 0.20, 0.30]
SOURCE_LIB = {"Harvard-Nuclei": 1200.0, "Sanger-CD45": 3500.0, "Sanger-Cells": 4000.0, "Sanger-Nuclei": 1500.0}
DONORS = ["D1", "D2", "D3", "D4", "D5", "D6", "D7", "D11", "H2", "H3", "H4", "H5", "H6", "H7"]
REGIONS = ["LA", "LV", "RA", "RV", "AX", "SP"]


def write_heart_atlas(path: Path, n_cells: int = N_CELLS, n_genes: int = N_GENES, seed: int = 0) -> None:
    import anndata
    import pandas as pd
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    genes = [f"MT-{g}" for g in ("ND1", "ND2", "CO1", "CO2", "ATP8", "ATP6", "CO3", "ND3", "ND4L", "ND4", "ND5",
                                 "ND6", "CYB")]
    genes += [f"RPL{i}" for i in range(3, 40)] + [f"RPS{i}" for i in range(2, 30)]
    genes += [f"GENE{i:05d}" for i in range(n_genes - len(genes))]
    n_mt, n_ribo = 13, 37 + 28

    base = rng.lognormal(mean=-9.5, sigma=1.6, size=n_genes)          # relative expression per gene
    base[:n_mt] *= 40.0
    base[n_mt:n_mt + n_ribo] *= 30.0
    base /= base.sum()
    n_types = len(TYPES)
    program = np.ones((n_types, n_genes))
    for t in range(n_types - 2):
        markers = rng.choice(np.arange(n_mt + n_ribo, n_genes), 60, replace=False)
        program[t, markers] = rng.lognormal(2.0, 0.7, 60)
    program[n_types - 2] = (program[2] + program[3]) / 2                # doublets: a mix
    theta = rng.uniform(0.5, 5.0, n_genes)                              # NB inverse dispersion

    cell_type = rng.choice(n_types, n_cells, p=np.array(TYPE_P) / sum(TYPE_P))
    source = rng.choice(len(SOURCES), n_cells, p=SOURCE_P)
    donor = rng.integers(0, len(DONORS), n_cells)
    donor_factor = rng.lognormal(0.0, 0.3, (len(DONORS), n_genes))
    lib = np.array([SOURCE_LIB[SOURCES[s]] for s in source]) * rng.lognormal(0.0, 0.5, n_cells)

    rows = []
    for i in range(n_cells):
        mu = base * program[cell_type[i]] * donor_factor[donor[i]]
        mu *= lib[i] / mu.sum()
        lam = rng.gamma(theta, mu / theta)
        rows.append(sp.csr_matrix(rng.poisson(lam).astype(np.float32)))
    X = sp.vstack(rows, format="csr").astype(np.float32)

    n_counts = np.asarray(X.sum(1)).ravel()
    n_genes_cell = np.diff(X.indptr)
    pct_mito = np.asarray(X[:, :n_mt].sum(1)).ravel() / np.maximum(n_counts, 1)
    pct_ribo = np.asarray(X[:, n_mt:n_mt + n_ribo].sum(1)).ravel() / np.maximum(n_counts, 1)
    obs = pd.DataFrame({
        "NRP": pd.Categorical(rng.choice(["Yes", "No"], n_cells)),
        "age_group": pd.Categorical(rng.choice(["40-45", "50-55", "55-60", "60-65", "65-70"], n_cells)),
        "cell_source": pd.Categorical([SOURCES[s] for s in source], categories=SOURCES),
        "cell_type": pd.Categorical([TYPES[t] for t in cell_type], categories=TYPES),
        "donor": pd.Categorical([DONORS[d] for d in donor], categories=DONORS),
        "gender": pd.Categorical(rng.choice(["Male", "Female"], n_cells)),
        "n_counts": n_counts.astype(np.float32),
        "n_genes": n_genes_cell.astype(np.int64),
        "percent_mito": pct_mito.astype(np.float32),
        "percent_ribo": pct_ribo.astype(np.float32),
        "region": pd.Categorical(rng.choice(REGIONS, n_cells)),
        "sample": pd.Categorical([f"{DONORS[d]}_{SOURCES[s]}" for d, s in zip(donor, source)]),
        "scrublet_score": rng.beta(2, 20, n_cells).astype(np.float32),
        "source": pd.Categorical(np.where(np.char.find(np.array([SOURCES[s] for s in source]), "Nuclei") >= 0,
                                          "Nuclei", "Cells")),
        "type": pd.Categorical(rng.choice(["DCD", "DBD"], n_cells)),
    }, index=[f"AAACCTG{i:06d}-1" for i in range(n_cells)])
    var = pd.DataFrame({"n_counts": np.asarray(X.sum(0)).ravel().astype(np.float32)}, index=genes)
    path.parent.mkdir(parents=True, exist_ok=True)
    anndata.AnnData(X=X, obs=obs, var=var).write_h5ad(path, compression="gzip")


if __name__ == "__main__":
    write_heart_atlas(Path(sys.argv[1]) / "quick_start" / "hca_subsampled_20k.h5ad")
