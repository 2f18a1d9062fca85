"""Read torch.profiler traces (Chrome trace format, as Kineto writes them) recorded anywhere.

``read`` streams a trace file's events in one pass; ``summarize`` turns them into the record's
ProfilerSummary (the one path both a trace file and the live probe's profiler window take).
"""
