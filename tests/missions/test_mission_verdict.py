"""A mission's verdict names the mission as people read it (its name, not its id): the play
page and the terminal show MissionResult.text()."""

from nochmal.bots.registry import make_agent
from nochmal.missions.coop import play_mission
from nochmal.missions.loader import shipped_mission


def test_a_mission_verdict_names_the_mission():
    mission = shipped_mission("star-hunt")
    _, result = play_mission(mission, "easy", [make_agent("greedy"), make_agent("greedy")], seed=3)
    assert result.text().startswith("Star hunt: ") and "star-hunt" not in result.text()
    assert result.to_dict()["mission"] == "star-hunt"  # the machine field keeps the id
