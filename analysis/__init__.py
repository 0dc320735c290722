"""scopa_sim.analysis (layer 4): statistics, reports and charts over a run
dataset (the intervals themselves: `scopa_sim.stats`; the summary `simulate`
prints: `runs.summary`).

    markov      the exact match win probability from per-round scores
    ratings     Bradley-Terry ratings (choix) with intervals, Elo scale
    query       `ask`: P(event | condition) over a run's columns
    expr        `ask`'s expression language: parsed, checked, evaluated over numpy
    values      what each card is worth, from a run's rows and its deal columns
    runstats    what a report says about a run, in one pass
    views       how each result reads as tables and CSV records
    output      table / JSON / CSV rendering
    report      Markdown and HTML reports with their charts
    charts      matplotlib charts (Agg)
    almanac     the almanac's numbers from its runs and results (it plays nothing)
    almanac_page ALMANAC.md and its charts from those numbers
    review_page a game review as its evaluation chart and one HTML page
"""
if __name__ != "scopa_sim.analysis":         # imported as a top-level `analysis` from the repository root
    raise ImportError("this folder is installed as scopa_sim.analysis: import scopa_sim.analysis, not "
                      "analysis (bash scripts/setup.sh installs it)")

