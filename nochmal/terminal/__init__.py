"""Terminal play: people type their choices line by line, bots answer at once.

A front end over the table session (``nochmal.table``: the game, seats, seeds, undo and
record, shared with the web app), split by concern:

- ``choice``: the human-move grammar, built on ``Move.parse``;
- ``planner``: what the planner finds for a seeded solo game (``puzzle``'s last word);
- ``reader``: reading one line of input, echoed when piped;
- ``session``: the turn loop of one game (``play``, ``puzzle``, co-op missions), printing and
  reading around the table session;
- ``replay``: stepping through a record turn by turn (``nochmal replay --step``).
"""
