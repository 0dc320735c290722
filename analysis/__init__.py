"""scopa_sim.analysis: statistics, reports and charts over a run dataset."""
