"""The soak: the user's workload for hours, watched interval by interval, and a verdict with its rules."""
