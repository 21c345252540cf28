"""Where and how benchmarks run: the self-contained bench, and the targets that run it."""
