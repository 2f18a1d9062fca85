"""Notebooks: ``trainprobe diagnose train.ipynb`` and ``%%trainprobe`` in a live kernel.

* :mod:`.read` reads a notebook's code cells (JSON, without nbformat) and plans their run;
* :mod:`.run` runs them in the probed child, as a kernel would;
* :mod:`.cells` names cells where Python expects a file ("cell 6, line 4");
* :mod:`.live` probes code in the kernel's own process, for :mod:`.magic` (the IPython extension,
  ``%load_ext trainprobe`` and ``%%trainprobe``) and :mod:`.measure` (``with trainprobe.measure():``);
* :mod:`.kernel` is what the running kernel knows: the notebook's path, its cells' file names;
* :mod:`.relabel` renames a kernel's cell files in a record;
* :mod:`.outcome` adds a notebook run's skipped lines and failing cell to its record;
* :mod:`.watch` is the helper process that samples the kernel from outside;
* :mod:`.show` is the inline view: a progress line, the verdict and a link to the report.

Nothing here imports IPython or torch until it is used.
"""
