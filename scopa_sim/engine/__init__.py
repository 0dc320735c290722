"""The game face (layer 2), and the one door to the kernels: cards and their
notation, rules, the strategy registry and users' strategies, what a seat
sees, seats, positions, `Round`/`Game` over the kernel's position, rollouts,
the dealing of a run's rounds, the result schema and game records. Imports
only `kernels`, the base modules (defaults, stats, data) and itself."""
