"""Records that trigger each rule and records that must not (see cases.py)."""
