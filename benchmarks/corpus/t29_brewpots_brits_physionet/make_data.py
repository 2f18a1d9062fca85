"""Data for BrewPOTS' 202505_datawhale/Task04.ipynb (PyPOTS BRITS classification on PhysioNet-2012 set-a): a
generated PhysioNet Challenge 2012 in the raw layout that tsdb.load("physionet_2012") reads from its cache folder.

benchpots.datasets.preprocess_physionet2012 calls tsdb.load, which looks in ~/.pypots/tsdb/physionet_2012/ (HOME is
set to the run folder by the recipe, so that is RUN/.pypots/tsdb/physionet_2012/) and would download the 12,000
patient files (3 sets x 4,000) from physionet.org if that folder were missing. We write, seeded:
  set-a/, set-b/, set-c/   one RECORDID.txt per ICU stay, "Time,Parameter,Value" rows: at 00:00 the six general
                           descriptors (RecordID, Age, Gender, Height, ICUType, Weight), then the 36 time-series
                           variables plus Weight, measured at "HH:MM" times over the first 48 hours, each variable
                           with its own sampling rate (vital signs most hours, labs a few times: ~80% of the
                           48 x 37 grid stays missing, as in the real data) and a plausible value range;
  Outcomes-a.txt, ...      RecordID,SAPS-I,SOFA,Length_of_stay,Survival,In-hospital_death (~14% deaths).
Sizes: set-a 200 stays (the real set-a has 4,000), set-b and set-c 20 each (the notebook uses set-a only, but tsdb
parses all three). tsdb writes physionet_2012_cache.pkl there on the first load.
"""
import sys
from pathlib import Path

import numpy as np

N_PER_SET = {"a": 200, "b": 20, "c": 20}
FIRST_ID = {"a": 132539, "b": 142675, "c": 152871}

# name: (mean, std, observation probability per hour)
VARIABLES = {
    "ALP": (116, 60, 0.02), "ALT": (100, 150, 0.02), "AST": (120, 180, 0.02), "Albumin": (2.9, 0.6, 0.015),
    "BUN": (27, 20, 0.06), "Bilirubin": (2.0, 3.5, 0.02), "Cholesterol": (156, 45, 0.002), "Creatinine": (1.5, 1.5, 0.06),
    "DiasABP": (59, 12, 0.55), "FiO2": (0.55, 0.2, 0.15), "GCS": (11, 4, 0.3), "Glucose": (140, 60, 0.06),
    "HCO3": (23, 4.5, 0.06), "HCT": (30.5, 5, 0.08), "HR": (87, 18, 0.9), "K": (4.1, 0.7, 0.07),
    "Lactate": (2.8, 2.5, 0.04), "MAP": (80, 15, 0.55), "MechVent": (1, 0, 0.15), "Mg": (2.0, 0.4, 0.06),
    "NIDiasABP": (58, 15, 0.4), "NIMAP": (77, 16, 0.4), "NISysABP": (119, 24, 0.4), "Na": (139, 5, 0.06),
    "PaCO2": (40, 9, 0.12), "PaO2": (148, 85, 0.12), "Platelets": (190, 100, 0.06), "RespRate": (19.5, 5.5, 0.25),
    "SaO2": (96.5, 3.5, 0.04), "SysABP": (119, 24, 0.55), "Temp": (37.0, 1.0, 0.3), "TroponinI": (7, 10, 0.005),
    "TroponinT": (1.2, 2.5, 0.01), "Urine": (116, 150, 0.7), "WBC": (12.5, 7, 0.06), "Weight": (83, 24, 0.45),
    "pH": (7.39, 0.07, 0.12),
}


def write_set(root: Path, letter: str, rng: np.random.Generator) -> None:
    folder = root / f"set-{letter}"
    folder.mkdir(parents=True, exist_ok=True)
    names = list(VARIABLES)
    means = np.array([VARIABLES[n][0] for n in names])
    stds = np.array([VARIABLES[n][1] for n in names])
    probs = np.array([VARIABLES[n][2] for n in names])
    outcomes = ["RecordID,SAPS-I,SOFA,Length_of_stay,Survival,In-hospital_death"]
    for k in range(N_PER_SET[letter]):
        rid = FIRST_ID[letter] + k
        died = int(rng.random() < 0.14)
        shift = rng.normal(0, 0.5, len(names)) + (0.3 if died else 0.0)  # a patient-level offset per variable
        weight = round(float(rng.normal(83, 24)), 1) if rng.random() < 0.9 else -1
        rows = ["Time,Parameter,Value", f"00:00,RecordID,{rid}", f"00:00,Age,{int(rng.integers(16, 91))}",
                f"00:00,Gender,{int(rng.integers(0, 2))}",
                f"00:00,Height,{round(float(rng.normal(170, 10)), 1) if rng.random() < 0.5 else -1}",
                f"00:00,ICUType,{int(rng.integers(1, 5))}", f"00:00,Weight,{weight}"]
        observed = rng.random((48, len(names))) < probs
        values = means + stds * (shift + 0.5 * rng.standard_normal((48, len(names))))
        for hour in range(48):
            cols = np.flatnonzero(observed[hour])
            if len(cols) == 0:
                continue
            stamp = f"{hour:02d}:{int(rng.integers(0, 60)):02d}"
            for c in cols:
                value = 1 if names[c] == "MechVent" else round(float(abs(values[hour, c])), 2)
                rows.append(f"{stamp},{names[c]},{value}")
        (folder / f"{rid}.txt").write_text("\n".join(rows) + "\n")
        los = int(rng.integers(2, 40))
        outcomes.append(f"{rid},{int(rng.integers(5, 30))},{int(rng.integers(0, 15))},{los},"
                        f"{int(rng.integers(1, los + 1)) if died else -1},{died}")
    (root / f"Outcomes-{letter}.txt").write_text("\n".join(outcomes) + "\n")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    root = run / ".pypots" / "tsdb" / "physionet_2012"
    rng = np.random.default_rng(2012)
    for letter in "abc":
        write_set(root, letter, rng)
