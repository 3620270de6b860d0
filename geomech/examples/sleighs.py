r"""Sleighs and skates: a rigid body on a plane carrying a knife edge.

Configuration space :math:`N = SE(2) \ni (x, y, \varphi)`; the knife edge forbids the velocity
of its contact point across the blade, :math:`-\dot x\sin\varphi + \dot y\cos\varphi = 0`.

* :func:`chaplygin_sleigh` -- horizontal Chaplygin sleigh, Borisov & Mamaev (2015),
  §3.3, (3.13)-(3.18);
* :func:`inclined_chaplygin_sleigh` -- the sleigh on an inclined plane, §4.5, (4.25)-(4.27);
* :func:`skate` -- Kozlov's skate (Kozlov (1982), §5), the standard example of
  vakonomic versus nonholonomic dynamics.

The module also holds the small helpers shared by the catalogue modules (parameters as
symbols, user potentials, construction of the system object).

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> S.constraints
(-xdot*sin(phi) + ydot*cos(phi),)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import sympy as sp

from geomech.core.manifold import Manifold, as_symbols
from geomech.core.parse import as_expr, parse_expr

from ._registry import register

__all__ = ["chaplygin_sleigh", "inclined_chaplygin_sleigh", "skate"]

#: Assumptions of parameters created by the catalogue (as :class:`Manifold` does for names).
PARAM_ASSUMPTIONS = {"real": True, "positive": True}

ParamValue = sp.Expr | float | int | None
UserExpr = sp.Expr | str | Callable | None


# -- shared helpers (used by all catalogue modules) --------------------------------------
def _param(value: ParamValue, name: str) -> sp.Expr:
    """The parameter ``name``: a positive real symbol when ``value`` is None, else ``value``.

    >>> _param(None, "m"), _param(2, "m")
    (m, 2)
    """
    if value is None:
        return sp.Symbol(name, **PARAM_ASSUMPTIONS)
    if isinstance(value, bool):
        raise TypeError(f"parameter {name!r} must be a number or a sympy expression, got a bool")
    if isinstance(value, str):
        raise TypeError(f"parameter {name!r} must be a number or a sympy expression, got a "
                        f"string; pass sympy.Symbol({value!r}) for a symbol")
    if isinstance(value, float):
        return sp.nsimplify(value, rational=True)
    try:
        out = as_expr(value)
    except (sp.SympifyError, TypeError):
        raise TypeError(f"parameter {name!r} must be a number or a sympy expression, got "
                        f"{type(value).__name__}") from None
    if not isinstance(out, sp.Expr):
        raise TypeError(f"parameter {name!r} must be a scalar expression, got {value!r}")
    return out


def _params(**values: ParamValue) -> dict[str, sp.Expr]:
    """``{name: _param(value, name)}`` preserving the order of the keywords."""
    return {k: _param(v, k) for k, v in values.items()}


def _coords(spec: str) -> tuple[sp.Symbol, ...]:
    """Real coordinate symbols (the same objects :class:`Manifold` would create)."""
    return as_symbols(spec, {"real": True})


def _user_expr(value: UserExpr, coords: Sequence[sp.Symbol], params: Mapping[str, sp.Expr],
               what: str) -> sp.Expr:
    """A user-supplied function of the coordinates (potential, surface ...).

    ``value`` is None (zero), a callable taking the coordinates, a string (parsed safely with
    the names of the coordinates and of the symbolic parameters) or a sympy expression (free
    symbols named like a coordinate are identified with it).
    """
    if value is None:
        return sp.S.Zero
    if callable(value) and not isinstance(value, sp.Basic):
        out = value(*coords)
        return _user_expr(out, coords, params, what) if not isinstance(out, sp.Basic) \
            else _identify(out, coords)
    if isinstance(value, str):
        names = {c.name: c for c in coords}
        for p in params.values():
            for s in p.free_symbols:
                names.setdefault(s.name, s)
        return parse_expr(value, names, context=what)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _param(value, what)
    if isinstance(value, sp.Expr):
        return _identify(value, coords)
    raise TypeError(f"{what} must be a sympy expression, a string or a callable of the "
                    f"coordinates {tuple(coords)}, got {type(value).__name__}")


def _identify(expr: sp.Expr, coords: Sequence[sp.Symbol]) -> sp.Expr:
    by_name = {c.name: c for c in coords}
    rep = {s: by_name[s.name] for s in expr.free_symbols
           if isinstance(s, sp.Symbol) and s.name in by_name and s != by_name[s.name]}
    return expr.xreplace(rep) if rep else expr


def _manifold(name: str, coords: Sequence[sp.Symbol], params: Mapping[str, sp.Expr],
              *extra: sp.Expr) -> Manifold:
    """The configuration chart; its parameters are the free symbols of the parameter values
    (in the order given) and of ``extra`` expressions (potentials ...), except coordinates."""
    seen: list[sp.Symbol] = []
    cs = set(coords)
    for v in (*params.values(), *extra):
        for s in sorted(as_expr(v).free_symbols, key=sp.default_sort_key):
            if isinstance(s, sp.Symbol) and s not in cs and s not in seen:
                seen.append(s)
    return Manifold(name, tuple(coords), parameters=tuple(seen))


def _independent(N: Manifold, names) -> tuple[sp.Symbol, ...] | None:
    """Velocity symbols of ``N`` from names like ``"xdot"`` or symbols (None stays None)."""
    if names is None:
        return None
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    by_name = {v.name: v for v in N.velocities}
    out = []
    for v in names:
        key = v.name if isinstance(v, sp.Symbol) else v
        if key not in by_name:
            raise ValueError(f"{v!r} is not a velocity of {N.name}; velocities are "
                             f"{', '.join(by_name)}")
        out.append(by_name[key])
    return tuple(out)


def _system(N: Manifold, lagrangian: sp.Expr, constraints, *, name: str, description: str,
            forces=None, independent=None, natural_frame=None):
    """Build the :class:`~geomech.mechanics.system.NonholonomicSystem` (imported lazily)."""
    from geomech.mechanics.system import NonholonomicSystem

    lagrangian = _tidy(lagrangian, N.velocities)
    constraints = [_tidy(c, N.velocities) for c in constraints]
    return NonholonomicSystem(N, lagrangian=lagrangian, constraints=list(constraints),
                              forces=forces, independent=_independent(N, independent),
                              name=name, description=description,
                              natural_frame=natural_frame)


def _potential(value, coords, params, generic_name: str = "U") -> sp.Expr:
    """Potential: None -> 0, True -> a generic function ``U(q)``, else :func:`_user_expr`."""
    if value is True:
        return sp.Function(generic_name, real=True)(*coords)
    if value is False:
        return sp.S.Zero
    return _user_expr(value, coords, params, "potential")


# -- catalogue ----------------------------------------------------------------------------
@register
def chaplygin_sleigh(m: ParamValue = None, I: ParamValue = None, a: ParamValue = None,  # noqa: E741
                     potential: UserExpr | bool = None, independent=("xdot", "phidot")):
    r"""Chaplygin sleigh on a horizontal plane (Borisov & Mamaev (2015), §3.3).

    A rigid body on smooth legs and a knife edge.  :math:`(x, y)` is the point :math:`O_1`
    of the blade line closest to the centre of mass :math:`C`, :math:`\varphi` the heading,
    :math:`a = |O_1C|` (along the blade), :math:`I` the moment of inertia about :math:`O_1`
    (:math:`I = I_C + m a^2`).

    .. math::

        L = \tfrac12 m(\dot x^2+\dot y^2) + \tfrac12 I\dot\varphi^2
            + m a\dot\varphi(-\dot x\sin\varphi + \dot y\cos\varphi) - U(x, y, \varphi),
        \qquad -\dot x\sin\varphi + \dot y\cos\varphi = 0 .          \quad (3.13), (3.14)

    With :math:`v_1 = \dot x\cos\varphi + \dot y\sin\varphi`, :math:`\omega = \dot\varphi`
    the equations are (3.18): :math:`m\dot v_1 = m a\omega^2 - \cos\varphi\,U_x
    - \sin\varphi\,U_y`, :math:`I\dot\omega = -m a\omega v_1 - U_\varphi`; the energy is
    :math:`E = \tfrac12(m v_1^2 + I\omega^2) + U`.

    Parameters
    ----------
    m, I, a : sympy expression or number, optional
        Mass, moment of inertia about :math:`O_1`, offset of the centre of mass; symbols
        ``m, I, a`` by default.
    potential : expression, str, callable or True, optional
        :math:`U(x, y, \varphi)`; ``True`` gives an undefined function ``U(x, y, phi)``.
    independent : sequence of velocity names, optional
        Velocities kept independent (default ``("xdot", "phidot")``; ``("ydot", "phidot")``
        is regular away from :math:`\sin\varphi = 0`, ``("xdot", "phidot")`` away from
        :math:`\cos\varphi = 0`).

    Examples
    --------
    >>> S = chaplygin_sleigh()
    >>> S.manifold.coords, S.manifold.parameters
    ((x, y, phi), (m, I, a))
    """
    p = _params(m=m, I=I, a=a)
    x, y, phi = q = _coords("x y phi")
    U = _potential(potential, q, p)
    N = _manifold("SE2", q, p, U)
    xd, yd, phid = N.velocities
    f = -xd * sp.sin(phi) + yd * sp.cos(phi)
    L = (p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2 + p["m"] * p["a"] * phid * f - U)
    S = _system(N, L, [f], name="chaplygin_sleigh", independent=independent,
                description="Chaplygin sleigh on a horizontal plane "
                            "(Borisov-Mamaev 2015, §3.3, (3.13)-(3.18))",
                natural_frame=_sleigh_frame(N))
    return S


def _sleigh_frame(N) -> dict:
    r"""The natural quasi-velocities of the sleigh: the speed :math:`v` along the blade
    :math:`\cos\varphi\,\partial_x + \sin\varphi\,\partial_y` and :math:`\omega = \dot\varphi`."""
    phi = N.coords[2]
    return {"frame": (N.vector_field([sp.cos(phi), sp.sin(phi), 0]), N.vector_field([0, 0, 1])),
            "names": ("v", "omega")}


@register
def inclined_chaplygin_sleigh(m: ParamValue = None, I: ParamValue = None,  # noqa: E741
                              a: ParamValue = None, g: ParamValue = None,
                              alpha: ParamValue = None, independent=("ydot", "phidot")):
    r"""Chaplygin sleigh on an inclined plane (Borisov & Mamaev (2015), §4.5).

    The Lagrangian (3.14) with the potential of gravity on a plane of inclination
    :math:`\alpha_0`, :math:`Oy` along the line of steepest slope (pointing up):

    .. math::

        U = m g\sin\alpha_0\,(y + a\sin\varphi), \qquad
        -\dot x\sin\varphi + \dot y\cos\varphi = 0 .

    By default the independent velocities are :math:`(\dot y, \dot\varphi)` -- the C-1 form
    (4.25) :math:`\dot x = \dot y\cot\varphi` used by the paper -- so the flow on
    :math:`(x, y, \varphi, \dot y, \dot\varphi)` is (4.27):
    :math:`\ddot y = a\dot\varphi^2\sin\varphi - g\sin\alpha_0\sin^2\varphi
    + \dot\varphi\dot y\cot\varphi`,
    :math:`\ddot\varphi = -(m a/I)(g\sin\alpha_0\cos\varphi + \dot\varphi\dot y/\sin\varphi)`,
    with the energy :math:`E = \tfrac12(m\dot y^2/\sin^2\varphi + I\dot\varphi^2) + U`.

    Parameters
    ----------
    m, I, a, g : optional
        Mass, moment of inertia about :math:`O_1`, offset, gravity (symbols by default).
    alpha : optional
        Inclination :math:`\alpha_0` of the plane (symbol ``alpha`` by default).
    independent : sequence of velocity names, optional
        Default ``("ydot", "phidot")`` (singular where :math:`\sin\varphi = 0`).

    Examples
    --------
    >>> S = inclined_chaplygin_sleigh()
    >>> S.manifold.parameters
    (m, I, a, g, alpha)
    """
    p = _params(m=m, I=I, a=a, g=g, alpha=alpha)
    x, y, phi = q = _coords("x y phi")
    U = p["m"] * p["g"] * sp.sin(p["alpha"]) * (y + p["a"] * sp.sin(phi))
    N = _manifold("SE2", q, p)
    xd, yd, phid = N.velocities
    f = -xd * sp.sin(phi) + yd * sp.cos(phi)
    L = (p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2 + p["m"] * p["a"] * phid * f - U)
    S = _system(N, L, [f], name="inclined_chaplygin_sleigh", independent=independent,
                description="Chaplygin sleigh on an inclined plane "
                            "(Borisov-Mamaev 2015, §4.5, (4.25)-(4.27))",
                natural_frame=_sleigh_frame(N))
    return S


@register
def skate(m: ParamValue = 1, I: ParamValue = 1, independent=("xdot", "phidot")):  # noqa: E741
    r"""Kozlov's skate (Kozlov (1982), §5).

    :math:`(x, y)` is the contact point of the blade, :math:`\varphi` the blade angle; the
    blade cannot move sideways:

    .. math::

        L = \tfrac12 m(\dot x^2 + \dot y^2) + \tfrac12 I\dot\varphi^2, \qquad
        \dot x\sin\varphi - \dot y\cos\varphi = 0 .

    Kozlov uses unit masses (:math:`m = I = 1`, the defaults), so
    :math:`L = \tfrac12(\dot x^2 + \dot y^2 + \dot\varphi^2)`.  The nonholonomic skate moves
    uniformly on a circle: from :math:`(x, y, \varphi) = 0`, :math:`\dot x = v`,
    :math:`\dot\varphi = \omega` it follows :math:`x = (v/\omega)\sin\omega t`,
    :math:`y = (v/\omega)(1 - \cos\omega t)`, :math:`\varphi = \omega t`; the vakonomic
    skate (same data, :math:`\lambda_0 = 0`) drifts.

    Parameters
    ----------
    m, I : optional
        Mass and moment of inertia about the contact point (default 1, as in Kozlov (1982)).
    independent : sequence of velocity names, optional
        Default ``("xdot", "phidot")``: the Tzenoff split :math:`\dot y = \tan\varphi\,\dot x`
        of the Tzenoff form of the skate (regular where :math:`\cos\varphi \ne 0`).

    Examples
    --------
    >>> skate().lagrangian
    phidot**2/2 + xdot**2/2 + ydot**2/2
    """
    p = _params(m=m, I=I)
    x, y, phi = q = _coords("x y phi")
    N = _manifold("SE2", q, p)
    xd, yd, phid = N.velocities
    L = p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2
    f = xd * sp.sin(phi) - yd * sp.cos(phi)
    return _system(N, L, [f], name="skate", independent=independent,
                   description="Skate / knife edge on a horizontal plane "
                               "(Kozlov 1982, §5; vakonomic versus nonholonomic)")


def _trig_reduce(c: sp.Expr) -> sp.Expr:
    r"""Shortest of ``expand(c)`` and its reductions modulo :math:`\sin^2 + \cos^2 = 1`
    (all squares of sines, or all of cosines, eliminated); no double angles are introduced."""
    c0 = sp.expand(c)
    angles = {t.args[0] for t in c0.atoms(sp.sin, sp.cos)}
    if not angles:
        return c0
    cands = [c0]
    for f, g in ((sp.sin, sp.cos), (sp.cos, sp.sin)):
        cands.append(sp.expand(c0.subs({f(a)**2: 1 - g(a)**2 for a in angles})))
    return min(cands, key=sp.count_ops)


def _tidy(expr: sp.Expr, velocities: Sequence[sp.Symbol]) -> sp.Expr:
    r"""Collect ``expr`` (a polynomial in the velocities) and reduce each coefficient modulo
    :math:`\sin^2 + \cos^2 = 1`, keeping it equal as a function.

    Used once per catalogue system, on the coefficients of Lagrangians and constraints, so
    that the equations derived from them start compact.

    >>> th, a, b = sp.symbols("theta a b")
    >>> _tidy(a**2*sp.sin(th)**2 + a**2*sp.cos(th)**2 + b*sp.cos(th)**2, [a])
    a**2 + b*cos(theta)**2
    """
    expr = as_expr(expr)
    if any(not p.exp.is_Integer for p in expr.atoms(sp.Pow)):
        return expr                  # radicals (e.g. ellipsoids): expansion would only grow
    poly = sp.Poly(sp.expand(expr), *velocities)
    out = sp.S.Zero
    for monom, coeff in poly.terms():
        c = _trig_reduce(coeff) if sp.count_ops(coeff) < 2000 else coeff
        out += sp.factor_terms(c) * sp.Mul(*[v**k for v, k in zip(velocities, monom)])
    return out if sp.count_ops(out) <= sp.count_ops(expr) else expr
