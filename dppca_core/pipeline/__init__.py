"""Pipeline: the release as a chain of private steps (budget, with its ledger and options), the private choices
it makes from the data (choices: scales, radius), the private score plot (scores), and the repetitions and sweeps
the app and the planner run over it (experiments). Above the mechanisms and api, below planning and the estimator.
"""
