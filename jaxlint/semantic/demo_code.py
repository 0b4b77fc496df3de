"""Demonstration code: notebooks, and modules under a docs, examples, tutorials, notebooks or
colabs folder. (A `demo` folder is not one by name: this project's own bundled demo, like many, is
written to show every finding.)

Such code is written to show an API on sizes chosen to run in seconds on a laptop: a three-scalar
model, an MLP of a few kilobytes, a handful of steps. A finding whose cost grows with the size of the
state (JAX401: peak memory holds the old and the new state) tells the reader something only when the
state is worth a second copy, so there it is reported only where the source shows a size of 1 MB
or more (semantic/carried_state.WORTH_DONATING_BYTES, the threshold every module uses; an MNIST MLP
of 784-512-512-10 holds 2.7 MB), through the binding that reaches the update
(carried_state.reaches_large). A size the source does not show stays silent there: the labels of
demonstration code call about seven in ten such missing donations real and three in ten tiny: too few for
a finding nine times in ten. Everything else is judged as in any other module: a host
sync every step or a key reused is the same mistake in a tutorial, and a tutorial is where people
copy it from.
"""

from __future__ import annotations

import re

_DEMONSTRATION_FOLDER = re.compile(r"(^|/)(docs?|examples?|tutorials?|notebooks?|colabs?)/", re.IGNORECASE)


def is_demonstration_module(filename: str) -> bool:
    path = (filename or "").replace("\\", "/")
    return path.endswith(".ipynb") or bool(_DEMONSTRATION_FOLDER.search(path))
