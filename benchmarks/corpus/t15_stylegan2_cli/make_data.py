"""Generated images for lucidrains/stylegan2-pytorch's command line trainer, and the console-script shim.

The trainer (`stylegan2_pytorch --data ./data ...`) globs RUN/data/**/*.jpg: 800 smooth-noise 128x128 JPEGs
(quality 90, seeded), which its Dataset opens with PIL, converts to RGB, resizes to --image-size 32 and
centre-crops per sample. The package is installed by pip as a console script `stylegan2_pytorch` whose file is
pip's standard entry-point shim; since the package is imported from the run folder here (not pip-installed),
RUN/stylegan2_pytorch_cli.py is that same shim, written verbatim (ours, three lines of code).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

SHIM = '''# -*- coding: utf-8 -*-
# pip's console-script entry point for `stylegan2_pytorch = stylegan2_pytorch.cli:main` (ours: written by make_data.py)
import re
import sys
from stylegan2_pytorch.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
'''

if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    for i in range(800):
        write_jpeg(run / "data" / f"{i:05d}.jpg", 128, 128, rng)
    (run / "stylegan2_pytorch_cli.py").write_text(SHIM)
