"""cloud-planner: measure a training workload, predict the full run, decide CPU vs GPU."""

__version__ = "0.1.0"
