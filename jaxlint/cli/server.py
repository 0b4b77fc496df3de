"""`jaxlint server`: the language server over stdio (pygls is imported only when it starts)."""

from __future__ import annotations

import click

from jaxlint.cli.common import CONTEXT_SETTINGS, UsageFailure


@click.command(context_settings=CONTEXT_SETTINGS)
def server():
    """Run the language server over stdio, for editors: findings as you type, fixes as quick fixes.

    Needs pygls: `pip install 'jaxlint[server]'`. Settings come from each document's nearest
    pyproject.toml.
    """
    # Imported here so that `check` and `fix` never load pygls.
    try:
        from jaxlint.server import start
    except ImportError as error:
        raise UsageFailure(f"the language server needs pygls ({error}); install it with `pip install 'jaxlint[server]'`") from None
    start()
