"""Runs (layer 3): the run plan, the one batch loop and its executors
(threads or Dask), the Parquet store and what reads it back, resuming,
tracing a run's round or game, exporting its records. Imports the game face
below it, never the studies of play above it."""
