"""`jaxlint runtime`: a placeholder command that loads the runtime mode (and jax) only when invoked.

The runtime mode's own options and help live in `jaxlint.runtime_checks.cli`; everything after
`runtime` on the command line is handed to it untouched.
"""

from __future__ import annotations

import click

from jaxlint.cli.common import UsageFailure


class LazyRuntime(click.Command):
    """`jaxlint runtime` imports the runtime mode (and jax) only when it is invoked."""

    def invoke(self, ctx):
        try:
            from jaxlint.runtime_checks.cli import runtime_command
        except ImportError as error:
            raise UsageFailure(f"the runtime mode is unavailable ({error}); install it with `pip install -e '.[runtime]'`") from None
        return runtime_command.main(args=[*ctx.args], prog_name="jaxlint runtime", standalone_mode=False)


runtime = LazyRuntime(
    name="runtime",
    help="Run flagged functions on the accelerator to confirm findings (needs jax).",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
)
