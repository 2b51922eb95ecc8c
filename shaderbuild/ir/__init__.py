"""The one intermediate representation shared by every pass and backend.

`types` holds interned value types; `nodes` holds the module, its globals,
functions, structured statements and typed expression trees.  See
ARCHITECTURE.md for the contract backends rely on.
"""

from .nodes import *  # noqa: F401,F403
from .nodes import binding_of, entry_of, io_of, wrapper_of  # noqa: F401  (typed accessors, outside __all__)
from .types import *  # noqa: F401,F403
from .types import numeric_scalar, resource_elem  # noqa: F401  (outside __all__)
