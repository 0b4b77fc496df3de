"""`jaxlint runtime`: a placeholder command that loads the runtime mode (and jax) only when invoked.

The runtime mode's own options and help live in `jaxlint.runtime_checks.cli`; everything after
`runtime` on the command line is handed to it untouched.
"""

from __future__ import annotations

import click

from jaxlint.cli.common import UsageFailure


class LazyRuntime(click.Command):
    """`jaxlint runtime` imports the runtime mode (and jax) only when it is invoked."""

    def parse_args(self, ctx, args):
        ctx.meta["jaxlint.runtime.argv"] = list(args)  # click's parser drops `--`; the runtime mode needs it
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        try:
            from jaxlint.runtime_checks.cli import runtime_main
        except ImportError as error:
            raise UsageFailure(f"the runtime mode is unavailable ({error}); install it with `pip install -e '.[runtime]'`") from None
        return runtime_main(ctx.meta.get("jaxlint.runtime.argv", [*ctx.args]))


runtime = LazyRuntime(
    name="runtime",
    help="Run flagged functions, or your own command after `--`, on the accelerator to confirm findings (needs jax: "
         "`pip install -e '.[runtime]'`). Exit status: the command's own when it fails, else 1 when a finding "
         "is confirmed, 0 when none is, 2 on a usage error; `jaxlint runtime --help` for more.",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
)
