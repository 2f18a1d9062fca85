"""Data for rtqichen/torchdiffeq's examples/ode_demo.py: none to write.

The script makes its own training data at start-up: true_y = odeint(Lambda(), true_y0, t, method='dopri5') under
no_grad, the 2-D cubic spiral dy/dt = (y**3) @ A with A = [[-0.1, 2.0], [-2.0, -0.1]], y0 = (2, 0), on
t = linspace(0, 25, data_size=1000); get_batch() draws batch_size=20 random windows of batch_time=10 points of it
(np.random, unseeded). Nothing is downloaded and nothing is read from disk, so this writes nothing into RUN; it only
checks that the run folder exists (prepare.py calls it like the other recipes' make_data.py).
"""
import sys
from pathlib import Path

if __name__ == "__main__":
    run = Path(sys.argv[1])
    if not run.is_dir():
        raise SystemExit(f"{run}: no such run folder")
