"""The web app (issue 18); the rooms live in nochmal.web.rooms (issue 19)."""
