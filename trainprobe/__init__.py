"""trainprobe: find what holds a PyTorch training run back, and how to fix it.

What a notebook needs is here::

    import trainprobe
    result = trainprobe.diagnose(["train.py", "--epochs", "1"])
    record = trainprobe.RunRecord.load("run.json")
    diagnosis = trainprobe.analyze(record)
    trainprobe.render(record, diagnosis, "report.html")

    %load_ext trainprobe              # then %%trainprobe on the training cell
    with trainprobe.measure():        # or probe a block of code in this process
        train(model, loader)
"""

from .version import __version__  # noqa: E402

from .api import analyze, diagnose, render  # noqa: E402
from .findings import Diagnosis  # noqa: E402
from .notebook.measure import measure  # noqa: E402
from .record import RunRecord  # noqa: E402

__all__ = ["__version__", "diagnose", "analyze", "render", "measure", "load_ipython_extension", "RunRecord",
           "Diagnosis"]


def load_ipython_extension(ipython) -> None:
    """``%load_ext trainprobe`` in IPython or Jupyter: the ``%%trainprobe`` cell magic."""
    from .notebook.magic import load_ipython_extension as load

    load(ipython)
