r"""Compilation of symbolic fields and functions to fast numpy callables.

The whole right-hand side of a vector field is compiled into **one** function: common
subexpressions of all components are eliminated together (:func:`sympy.cse`) and the result
is turned into Python/numpy code by :func:`sympy.lambdify`.  Parameters are substituted as
numbers first, so the compiled code only sees the phase-space coordinates.

>>> import geomech as gm
>>> M = gm.Manifold("M", "x y"); x, y = M.coords
>>> f = compile_vector_field(M.vector_field([-y, x]))
>>> f(0.0, [1.0, 0.0])
array([-0., 1.])

Modules: :mod:`~geomech.numeric.functions` (CSE'd scalar functions, the Jacobian, the numba
backend), :mod:`~geomech.numeric.implicit` (mass-matrix forms); this module compiles fields.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from geomech.core.fields import VectorField

from .functions import (
    CompiledFunction,
    CompiledJacobian,
)
from .implicit import CompiledImplicitField, is_implicit

__all__ = ["CompiledField", "compile_vector_field"]


class CompiledField(CompiledFunction):
    r"""A compiled vector field :math:`\dot x = X(x)`: call it as ``f(t, y)`` (scipy style).

    Built by :func:`compile_vector_field`.  ``f.manifold`` is the field's chart; ``f(t, y)``
    ignores ``t`` (fields are autonomous) and returns the components at ``y``.
    """

    def __init__(self, field: VectorField, parameters: Mapping | None = None,
                 backend: str = "numpy"):
        if not isinstance(field, VectorField):
            raise TypeError(f"compile_vector_field expects a VectorField, got "
                            f"{type(field).__name__}")
        self.manifold = field.manifold
        super().__init__(field.components, field.manifold.coords, parameters,
                         what=f"the vector field on {field.manifold.name}",
                         known=field.manifold.parameters, backend=backend)

    def __call__(self, t, y=None) -> np.ndarray:  # type: ignore[override]
        if y is None:           # f(y) also works
            t, y = 0.0, t
        if (type(y) is np.ndarray and y.ndim == 1 and y.shape[0] == len(self.coords)
                and self._func is not None):       # the solver's call: no further checks
            if self._kernel is not None:
                out = np.empty((1, len(self.exprs)))
                self._kernel(y.reshape(1, -1), out)
                return out[0]
            return np.array(self._func(*y), dtype=float)
        return super().__call__(y)

    @property
    def jacobian(self) -> CompiledJacobian:
        r"""The compiled Jacobian :math:`J^i_j = \partial X^i/\partial x^j` of the field
        (differentiated symbolically, compiled with one CSE on first access).

        >>> import geomech as gm
        >>> M = gm.Manifold("M", "x v"); x, v = M.coords
        >>> J = compile_vector_field(M.vector_field([v, -x**3])).jacobian
        >>> J(0.0, [2.0, 0.0])
        array([[  0.,   1.],
               [-12.,   0.]])
        """
        jac = self.__dict__.get("_jacobian")
        if jac is None:
            jac = CompiledJacobian(self.exprs, self.coords,
                                   backend=getattr(self, "backend", "numpy"))
            self.__dict__["_jacobian"] = jac
        return jac

    def __repr__(self) -> str:
        return (f"CompiledField(on {self.manifold.name}{self.coords}; "
                f"{self.operations} operations after CSE)")


def compile_vector_field(field, parameters: Mapping | None = None, backend: str = "auto"):
    r"""Compile a vector field (or a mass-matrix form) to a fast numpy right-hand side
    ``f(t, y)``.

    All components are compiled together: one :func:`sympy.cse` over the whole right-hand
    side, then :func:`sympy.lambdify` to numpy.  ``parameters`` (``{symbol or name:
    number}``) are substituted before compiling; a symbol that is neither a coordinate nor a
    given parameter raises ``ValueError`` naming it.

    Parameters
    ----------
    field : VectorField, ImplicitEquations or EquationsOfMotion
        The field :math:`X = \sum_i X^i(x)\,\partial_{x^i}`; or equations in mass-matrix
        form :math:`M(x)z = F(x)`, :math:`\dot x = g(x) + P(x)z` (``eq.mass_matrix_form()``;
        an ``EquationsOfMotion`` is compiled through its mass-matrix form): then :math:`M`,
        :math:`F`, :math:`g`, :math:`P` are compiled together and :math:`Mz = F` is solved
        numerically (``numpy.linalg.solve``) at every call, with no symbolic inversion.
    parameters : dict, optional
        Numeric values of the parameters.
    backend : {"auto", "sympy", "symengine", "numpy", "numba"}
        Compiler of a mass-matrix form: ``symengine.Lambdify`` with CSE when symengine is
        installed (``"auto"``; seconds instead of minutes for the rolling ellipsoid), else
        ``sympy.cse`` + ``lambdify``.  A vector field is compiled by ``sympy.cse`` +
        ``lambdify`` to numpy (``"auto"``, ``"numpy"``, ``"sympy"``) or, with ``"numba"``
        (optional dependency), the same CSE'd code as a numba-compiled loop: about 0.7 s to
        compile (1.4 s more for the Jacobian), then, measured for the Chaplygin ball
        (``benchmarks/bench_numeric.py``, CPU time), 7.8x faster per call, 5.8x on a batch
        of 10^4 states, 12x on the Jacobian batch, but only 1.3x on a whole ``simulate``
        (scipy's step overhead dominates).  Results agree with numpy to rounding, not bit
        for bit: keep one backend within a comparison.

    Returns
    -------
    CompiledField or CompiledImplicitField
        ``f(t, y) -> ndarray`` of the components :math:`X^i(y)`, in the order of
        ``field.manifold.coords``; vectorised over ``y`` of shape ``(n, T)``.

    Examples
    --------
    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x v", parameters="k"); x, v = M.coords; (k,) = M.parameters
    >>> f = compile_vector_field(M.vector_field([v, -k*x]), parameters={"k": 4})
    >>> f(0.0, [1.0, 0.0])
    array([ 0., -4.])

    A mass-matrix form (the sleigh's Lagrange--d'Alembert equations, no inversion):

    >>> S = gm.examples.chaplygin_sleigh()
    >>> imp = S.equations(explicit=False).mass_matrix_form()
    >>> g = compile_vector_field(imp, parameters={"m": 1, "I": 1, "a": 0.5})
    >>> h = compile_vector_field(S.vector_field(), parameters={"m": 1, "I": 1, "a": 0.5})
    >>> y = [0.1, 0.2, 0.3, 0.4, 0.5]
    >>> bool(np.allclose(g(0.0, y), h(0.0, y), rtol=1e-12))
    True
    """
    if backend not in ("auto", "sympy", "symengine", "numpy", "numba"):
        raise ValueError(f"backend must be 'auto', 'numpy', 'numba', 'sympy' or 'symengine', "
                         f"got {backend!r}")
    if isinstance(field, VectorField):
        if backend == "symengine":
            raise ValueError("backend='symengine' compiles mass-matrix forms; a vector field "
                             "uses 'numpy' (the default) or 'numba'")
        return CompiledField(field, parameters,
                             backend="numba" if backend == "numba" else "numpy")
    if backend in ("numpy", "numba"):
        backend = "sympy"
    if is_implicit(field):
        return CompiledImplicitField(field, parameters, backend=backend)
    mmf = getattr(field, "mass_matrix_form", None)
    if callable(mmf):
        return CompiledImplicitField(mmf(), parameters, backend=backend)
    raise TypeError(f"compile_vector_field expects a VectorField or a mass-matrix form "
                    f"(ImplicitEquations), got {type(field).__name__}")
