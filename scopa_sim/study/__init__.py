"""Studies of play (layer 5): advise, review, duplicate-deal matches, game
odds, the maxims and the almanac's runs. Each is built on runs and the game
face; their statistics, tables and charts come from `analysis`."""
