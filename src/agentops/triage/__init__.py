"""Second-level issue triage: queue data, the pure planner, and (elsewhere) the applier."""
