"""What the CLI and notebooks call: every command's work, and nothing above it but the CLI.

``run`` diagnoses a script or reads traces and applies the rules (the main line: probe ->
RunRecord -> rules -> Diagnosis -> outputs); ``job`` does it for whole jobs; ``saved`` for a run
already recorded (``report``, ``verify_record``); ``comparison`` compares runs; ``readiness``
grades the machine. The CLI (trainprobe/commands/) only translates arguments into these calls
and their results into an exit code (one policy: trainprobe/exits.py); notebooks call the same
functions. Nothing under trainprobe/ but the CLI and the notebook's front ends imports this
package.
"""

from .comparison import DEFAULT_COMPARE_FOLDER, CompareResult, compare
from .job import diagnose_job, is_job_command, job_command, merge
from .readiness import CheckRun, ClassPage, check, check_summary
from .outputs import (DiagnoseResult, TrainprobeError, analyze, check_target, load_record, render, summary_line,
                      write_outputs)
from .run import DEFAULT_VERIFY_BUDGET, diagnose, finish, trace, verify
from .saved import report, verify_record

__all__ = [
    "TrainprobeError",
    "DiagnoseResult",
    "diagnose",
    "analyze",
    "verify",
    "finish",
    "render",
    "write_outputs",
    "summary_line",
    "load_record",
    "check_target",
    "trace",
    "diagnose_job",
    "job_command",
    "is_job_command",
    "merge",
    "report",
    "verify_record",
    "compare",
    "CompareResult",
    "check",
    "CheckRun",
    "check_summary",
    "ClassPage",
    "DEFAULT_VERIFY_BUDGET",
    "DEFAULT_COMPARE_FOLDER",
]
