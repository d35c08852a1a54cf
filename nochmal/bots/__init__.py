"""Stronger bots; importing this package registers them with nochmal.agents."""

import nochmal.bots.heuristic  # noqa: F401  (registers "heuristic")
import nochmal.bots.lookahead  # noqa: F401  (registers "lookahead")
import nochmal.bots.levels  # noqa: F401  (registers "easy", "medium", "hard"; after the bots)
