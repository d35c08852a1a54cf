"""Analysis at scale: independent tasks (a seed, a bot lineup on a seed) run on Dask, their
results kept in a SQLite store one row per finished task, so a campaign resumes where it
stopped.

- ``nochmal.batch.store``: the store (its kind, settings version and campaign settings);
- ``nochmal.batch.tasks``: the task functions the workers run (plain data in, plain data out);
- ``nochmal.batch.runner``: the runner (a local cluster or an existing scheduler);
- ``nochmal.batch.report``: the summary of a store (figures, a histogram SVG).

A front-end layer (tests/test_layers.py): it may use the core, bots, missions and the
planner; only the CLI (nochmal/cli/batch_cmds.py) imports it. Dask is imported only by the
runner, so the store and the report open without it.
"""
