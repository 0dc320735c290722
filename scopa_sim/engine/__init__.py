"""The game face (layer 2): cards and their notation, rules, the strategy
registry and users' strategies, seats, `Round`/`Game` over the kernel's
position, the dealing of a run's rounds, the result schema and game records.
Imports only `kernels` and itself."""
