"""asv benchmarks of corset, one module per area."""
