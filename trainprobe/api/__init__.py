"""What the CLI and notebooks call: every command's work, and nothing above it but the CLI.

``run`` diagnoses a script or reads traces and applies the rules (the main line: probe ->
RunRecord -> rules -> Diagnosis -> outputs). The CLI (trainprobe/commands/) only translates
arguments into these calls and their results into an exit code; notebooks call the same
functions. Nothing under trainprobe/ but the CLI and the notebook's front ends imports this
package.
"""

from .run import (DEFAULT_VERIFY_BUDGET, DiagnoseResult, TrainprobeError, analyze, check_target, default_folder,
                  diagnose, finish, load_record, output_folder, render, summary_line, trace, verify, write_outputs)

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
    "DEFAULT_VERIFY_BUDGET",
]
