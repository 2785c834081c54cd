"""The command line, ``python -m explorer COMMAND``: one module per command or small family of
commands, each command a function beside its options (``add_NAME`` / ``run_NAME``), dispatched
by the table :data:`explorer.cli.commands.COMMANDS`; the options several share are in
:mod:`explorer.cli.options`."""

from explorer.cli.commands import build_parser, main, run
from explorer.cli.options import config_from

__all__ = ["build_parser", "config_from", "main", "run"]
