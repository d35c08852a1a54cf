"""``python -m nochmal.cli ...`` runs the ``nochmal`` command (e.g. under ``-X importtime``)."""

from nochmal.cli import main

main()
