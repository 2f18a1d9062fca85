"""What the running IPython kernel knows about its notebook: its path, and the file names of its cells."""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["kernel_cells", "notebook_path", "current_shell"]


def kernel_cells() -> dict[str, str]:
    """The kernel's cells that ran so far: the file name IPython compiled each with -> a cell file name
    (``<notebook>#cell-In[3]``), so that hotspots and call sites in them read "cell In[3], line 4"."""
    shell = current_shell()
    names = getattr(getattr(shell, "compile", None), "_filename_map", None) if shell is not None else None
    if not isinstance(names, dict):
        return {}
    from .cells import cell_filename

    notebook = notebook_path()
    return {name: cell_filename(notebook, f"In[{number}]") for name, number in names.items()
            if isinstance(number, int) and number > 0 and not str(name).startswith(notebook)}


def notebook_path() -> str:
    """The notebook's path when the kernel knows it (Jupyter Server, VS Code), else ``<cwd>/notebook``."""
    shell = current_shell()
    ns = getattr(shell, "user_ns", {}) if shell is not None else {}
    for candidate in (os.environ.get("JPY_SESSION_NAME"), ns.get("__session__"), ns.get("__vsc_ipynb_file__")):
        if isinstance(candidate, str) and candidate.endswith(".ipynb"):
            return os.path.abspath(candidate)
    return os.path.join(os.getcwd(), "notebook")


def current_shell() -> Any:
    module = sys.modules.get("IPython")
    if module is None:
        return None
    try:
        return module.get_ipython()
    except Exception:  # pylint: disable=broad-except
        return None
