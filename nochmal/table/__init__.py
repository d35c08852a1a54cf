"""One game at a table, as the front ends share it (the terminal, the web app, the CLI's
replays): no console, no reader, no HTTP.

- ``setup``: seat specs (human, human:NAME, a bot) and the seeds of bot decisions;
- ``session``: the table session: the game, the seats, the seed and its rolls, undo, the
  mission and its status, the record it saves;
- ``stepper``: a record's states turn by turn (``nochmal replay``, the web's replay page).

Layer: front ends (tests/test_layers.py, docs/architecture.md): it builds on the bots and
the missions, and imports none of the other front ends.
"""
