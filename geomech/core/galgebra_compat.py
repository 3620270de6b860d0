"""Import galgebra without its global side effects on sympy's printing.

Importing ``galgebra`` replaces the ``__repr__`` of every sympy object and the built-in
``print`` by its own printer (``Derivative(x(t), t)`` then prints as ``D{t}x`` and ``x(t)`` as
``x``).  geomech uses galgebra only to compute (bivectors of :math:`\\mathfrak{so}(n)`, forms
as multivectors), so it must not change how a user's expressions print.
:func:`import_galgebra` imports it and restores what it replaced, unless the user had imported
galgebra already (then its printing is the user's choice).  galgebra's own objects keep
their printing.

>>> import sympy as sp
>>> ga = import_galgebra()
>>> t = sp.Symbol("t")
>>> sp.Function("x")(t).diff(t)
Derivative(x(t), t)
>>> e1, e2 = ga.Ga.build("e1 e2", g=[1, 1])[1:]
>>> e1 ^ e2
e1^e2
"""

from __future__ import annotations

import builtins
import importlib
import sys
import threading
import types

from sympy.printing.defaults import Printable

__all__ = ["import_galgebra"]

_LOCK = threading.Lock()


def import_galgebra() -> types.ModuleType:
    """The module ``galgebra.ga`` (with ``galgebra.mv`` loaded), sympy's printing untouched.

    Raises
    ------
    ImportError
        If galgebra is not installed.
    """
    with _LOCK:
        if "galgebra.printer" in sys.modules:          # imported before: nothing to undo
            importlib.import_module("galgebra.mv")
            return importlib.import_module("galgebra.ga")
        saved_repr = Printable.__dict__.get("__repr__")
        saved_print = builtins.print
        had_hook = "__ga_print_str__" in Printable.__dict__
        try:
            importlib.import_module("galgebra.mv")
            return importlib.import_module("galgebra.ga")
        finally:
            if saved_repr is not None:
                Printable.__repr__ = saved_repr
            builtins.print = saved_print
            if not had_hook and "__ga_print_str__" in Printable.__dict__:
                del Printable.__ga_print_str__
