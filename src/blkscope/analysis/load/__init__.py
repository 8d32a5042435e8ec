"""What load and tracing cost: throughput lost to tracing and the trace's volume, the tracer's own cost as load
rises, and each run's steady-state window from its per-second throughput."""
