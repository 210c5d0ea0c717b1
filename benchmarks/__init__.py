"""The benchmark harness: ``python benchmarks/run.py`` (see run.py). Not part of the library."""
