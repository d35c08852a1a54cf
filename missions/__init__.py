"""Co-op missions (docs/missions.md): missions as TOML data, one generic checker, team play.

    from nochmal.missions import load_mission, coop_game, mission_result
    mission = load_mission("star-hunt")            # or a path to your own .toml file
    game = coop_game(mission, "normal", players=3)  # an engine Game in co-op mode
    ...                                             # play it (bots or people)
    print(mission_result(mission, game).text())
"""

from nochmal.missions.coop import (MissionResult, MissionStatus, coop_game, mission_record,
                                   mission_result, mission_status, play_mission)
from nochmal.missions.loader import (builtin_mission_files, builtin_missions, load_mission, parse_mission_text,
                                     read_mission_file)
from nochmal.missions.model import DIFFICULTIES, KINDS, SCOPES, Mission, MissionError, Objective
from nochmal.missions.objectives import ObjectiveStatus, all_met, evaluate, team_score

__all__ = [
    "MissionResult", "MissionStatus", "coop_game", "mission_record", "mission_result",
    "mission_status", "play_mission", "builtin_mission_files", "builtin_missions", "load_mission",
    "parse_mission_text", "read_mission_file", "DIFFICULTIES", "KINDS", "SCOPES", "Mission", "MissionError",
    "Objective", "ObjectiveStatus", "all_met", "evaluate", "team_score",
]
