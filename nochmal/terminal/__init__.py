"""Terminal play: people type their choices line by line, bots answer at once.

A front end over the rules core (``nochmal.game``), split by concern:

- ``setup``: seat specs (human, human:NAME, a bot) and the seeds of dice and bots;
- ``choice``: the human-move grammar, built on ``Move.parse``;
- ``planner``: what the planner finds for a seeded solo game (``puzzle``'s last word);
- ``reader``: reading one line of input, echoed when piped;
- ``session``: the turn loop of one game (``play``, ``puzzle``, co-op missions).
"""
