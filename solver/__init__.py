"""The planner (docs/planner.md): the best possible solo play for dice known in advance, proven with
CP-SAT, a validator that replays every plan through the engine, and post-game analysis.

    from nochmal.solver.instance import Instance
    from nochmal.solver.cpsat import solve
    plan = solve(Instance.from_seed(7, count=12), time_limit=30)   # validated Plan
    plan.status, plan.total, plan.bound

Modules: instance (what to plan), plan (the result as plain data), validate (engine replay),
cpsat (the model and search that ship), experiments (the variants the benchmarks measure),
analyse (points lost per roll of a solo record, rolls lost per roll of a co-op record), race
(one seat of a competitive record, the others' moves as they were), team (co-op missions: the
fewest rolls to win, from the start or a played position; its models in team_model, its first
lower bound in team_relaxation). The graph
measures (fewest further crosses) live with the missions that use them
(nochmal.missions.measures); the planner's models do not.
"""
