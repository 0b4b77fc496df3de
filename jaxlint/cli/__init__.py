"""The `jaxlint` command line: check, fix, rules, rule, runtime, server (one module per command).

Exit codes: 0 nothing found (or everything fixed), 1 findings remain, 2 usage or internal error.
The entry point is `jaxlint.cli:entry_point`; `run(argv)` returns the exit code without exiting.
"""

from __future__ import annotations

import sys
from typing import Sequence

import click

from jaxlint import __version__
from jaxlint.cli.check import check
from jaxlint.cli.common import (
    CONTEXT_SETTINGS,
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    UsageFailure,
    build_settings,
    enabled_rules,
    error_line,
)
from jaxlint.cli.fix import fix_command
from jaxlint.cli.rules import rule, rules
from jaxlint.cli.runtime import runtime
from jaxlint.cli.server import server
from jaxlint.config import ConfigError


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="jaxlint")
def main() -> None:
    """jaxlint finds JAX pitfalls before they run, fixes them where it is provably safe, and proves
    them on the accelerator.

    \b
    Examples:
      jaxlint check src/                  # lint a tree (reads [tool.jaxlint] from pyproject.toml)
      jaxlint check --select JAX1 f.py    # only the tracing-error rules
      jaxlint fix --diff src/             # show the safe fixes without writing
      jaxlint rule JAX201                 # explain a rule
      jaxlint runtime f.py::step --example "f32[1024,256]"
    """


for command in (check, fix_command, rules, rule, runtime, server):
    main.add_command(command)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return the exit code; no traceback ever reaches the user."""
    try:
        main.main(args=list(argv) if argv is not None else None, prog_name="jaxlint", standalone_mode=False)
        return EXIT_CLEAN
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else (EXIT_CLEAN if exit_.code is None else EXIT_ERROR)
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except click.UsageError as error:
        # One prefix for every error jaxlint prints, click's usage errors included.
        command = error.ctx.command_path if error.ctx is not None else "jaxlint"
        error_line(f"{error.format_message().rstrip('.')} (see `{command} --help`)")
        return EXIT_ERROR
    except click.ClickException as error:
        error_line(error.format_message())
        return error.exit_code if error.exit_code else EXIT_ERROR
    except click.exceptions.Abort:
        error_line("aborted")
        return EXIT_ERROR
    except (ConfigError, UsageFailure) as error:
        error_line(str(error))
        return EXIT_ERROR
    except KeyboardInterrupt:
        error_line("interrupted")
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as error:  # a bug of ours: say so in one line, never a traceback
        error_line(f"internal error: {error.__class__.__name__}: {error} (please report it; set JAXLINT_DEBUG=1 for details)")
        import os

        if os.environ.get("JAXLINT_DEBUG"):
            import traceback

            traceback.print_exc()
        return EXIT_ERROR


def entry_point() -> None:
    sys.exit(run())


if __name__ == "__main__":
    entry_point()


__all__ = [
    "EXIT_CLEAN", "EXIT_ERROR", "EXIT_FINDINGS", "UsageFailure", "build_settings", "enabled_rules", "entry_point", "error_line",
    "main", "run",
]
