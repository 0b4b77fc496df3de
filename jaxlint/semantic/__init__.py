"""The semantic model every rule asks: names, traced functions, traced and device values.

Nothing here knows about individual rules.
"""

from jaxlint.semantic.model import SemanticModel

__all__ = ["SemanticModel"]
