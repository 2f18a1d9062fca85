"""Prints what a script can see of how it was started, for the parity test."""
import json
import os
import sys

if __name__ == "__main__":
    line = sys.stdin.readline().strip()
    print("PARITY " + json.dumps({
        "name": __name__,
        "argv": sys.argv,
        "path0": sys.path[0],
        "cwd": os.getcwd(),
        "stdin": line,
        "file": __file__,
    }))
    print("to stderr", file=sys.stderr)
    sys.exit(int(os.environ.get("PARITY_EXIT", "0")))
