"""When requests happen and how long they take: latency stages as btt matches them, latency percentiles per window,
queue depth, seeks, inter-arrival and idle times, and the time-ordered replay of a trace's events that they
share."""
