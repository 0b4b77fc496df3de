"""Put first on PYTHONPATH by `jaxlint runtime -- COMMAND`: arm the instrumentation, then run the
`sitecustomize` this one shadows, if the environment has one."""

import os
import sys


def _arm() -> None:
    try:
        from jaxlint.runtime_checks.trace_hook import install_from_environment

        install_from_environment()
    except Exception as error:  # never stop the user's program from starting
        sys.stderr.write(f"jaxlint runtime: instrumentation not installed ({type(error).__name__}: {error})\n")


def _chain() -> None:
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_arm()
_chain()
