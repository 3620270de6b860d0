r"""Steady motions (relative equilibria) and their families.

A steady motion is an equilibrium of the field reduced by the symmetries
(:mod:`~geomech.mechanics.analysis.linearization`): the cyclic coordinates move uniformly
while the reduced state stays put -- the upright rolling disk, steady precessions of bodies of
revolution :math:`\theta = \theta_0`, :math:`\dot\psi = \Omega`, :math:`\dot\varphi = \omega`
with the classical relation (Routh (1884); Neimark & Fufaev (1972), Ch. III)

.. math:: A\Omega^2\sin\theta_0\cos\theta_0 - (C + ma^2)(\Omega\cos\theta_0 + \omega)\,
          \Omega\sin\theta_0 = mga\cos\theta_0

for the disk, the permanent rotations of a ball, the straight runs of the Chaplygin sleigh.
They come in families (:class:`SteadyFamily`) whose free constants are named; a catalogue
system declares its families (the first is its distinguished one, used by
:func:`steady_motion`), and :func:`steady_motions` adds those it finds by solving the
reduced equations (:func:`find_steady_families`: factors of the equations give the
branches; each declared family is verified exactly).

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> [f.name for f in S.steady_motions()]
['straight run']
>>> S.steady_motion(speed=2)
{'x': 0, 'y': 0, 'phi': 0, 'xdot': 2, 'phidot': 0}
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp

from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.core.zero.values import nowhere_zero
from geomech.mechanics.analysis.field_charts import FieldChart, cyclic_split, phase_space_chart
from geomech.mechanics.analysis.linearization import phase_state, steady_chart

__all__ = ["SteadyFamily", "steady_motions", "steady_motion", "find_steady_families",
           "verify_family", "declared_families"]

_MAX_OPS = 6000          # reduced equations larger than this are not searched automatically
_MAX_BRANCHES = 12


@dataclass(frozen=True)
class SteadyFamily:
    r"""A family of steady motions.

    Attributes
    ----------
    name : str
        E.g. ``"upright rolling"``.
    constants : tuple of Symbol
        The free constants (their names are the keywords of :meth:`at`).
    state : dict
        ``{coordinate name: expression in the constants}`` for every phase-space coordinate
        (dependent velocities may be included; cyclic coordinates are set to a reference
        value, 0 unless stated).
    relations : tuple
        Expressions in the constants that vanish on the family (empty when the constants
        are free).
    defaults : dict
        Default values of some constants (``{name: value}``).
    description : str
    ranges : dict
        The range of interest of some constants, ``{name: (low, high)}`` (the bicycle's
        speeds 0 to 10 m/s): stability diagrams and the report's sample verdicts span it.
    chart : str
        The chart its states are linearised in by the report (``"auto"``, or ``"natural"``
        where the Euler angles of the state carry radicals the natural variables do not:
        the heavy top at rest with its centre of mass off the axes).
    """

    name: str
    constants: tuple
    state: Mapping
    relations: tuple = ()
    defaults: Mapping = field(default_factory=dict)
    description: str = ""
    ranges: Mapping = field(default_factory=dict)
    chart: str = "auto"

    def at(self, **values) -> dict:
        r"""One state of the family: ``{coordinate name: value}``.  Every constant without a
        default must be given, or be solvable from a relation it enters linearly."""
        names = {c.name: c for c in self.constants}
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise ValueError(f"{', '.join(unknown)} not constant(s) of the family "
                             f"{self.name!r}; its constants are {', '.join(names) or 'none'}")
        sub = {names[k]: as_expr(v, context=f"the value of {k}")
               for k, v in {**self.defaults, **values}.items()}
        sub.update(self._solve_missing(sub))
        missing = [n for n, c in names.items() if c not in sub]
        if missing:
            raise ValueError(f"the family {self.name!r} needs a value for "
                             f"{', '.join(missing)}")
        for r in self.relations:
            val = as_expr(r).xreplace(sub)
            if not default_policy().is_zero(val):
                raise ValueError(f"the constants violate the relation of the family "
                                 f"{self.name!r}: {sp.sstr(r)} = {sp.sstr(val)}, not 0")
        return {k: as_expr(v).xreplace(sub) for k, v in self.state.items()}

    def _solve_missing(self, sub: dict) -> dict:
        """Constants left unspecified that a relation determines (entering linearly)."""
        out: dict = {}
        missing = [c for c in self.constants if c not in sub]
        for r in self.relations:
            r = as_expr(r).xreplace({**sub, **out})
            free = [c for c in missing if r.has(c) and c not in out]
            if len(free) == 1 and _degree(sp.numer(sp.together(r)), free[0]) == 1:
                out[free[0]] = sp.solve(r, free[0])[0]
        return out

    def __str__(self) -> str:
        consts = ", ".join(map(str, self.constants)) or "no constants"
        rel = "; " + ", ".join(f"{sp.sstr(r)} = 0" for r in self.relations) \
            if self.relations else ""
        return f"{self.name} ({consts}{rel})"


# =============================================================================================
# verification and search
# =============================================================================================
def verify_family(system, family: SteadyFamily) -> bool:
    """Whether the family's states are steady (the reduced field vanishes exactly, in the
    chart :func:`~geomech.mechanics.analysis.linearization.steady_chart` picks; a relation
    is solved linearly for one constant first)."""
    solved = _solved_relations(family)
    state = {k: as_expr(v).xreplace(solved) for k, v in family.state.items()}
    try:
        steady_chart(system, phase_state(system, state))
    except ValueError:
        return False
    return True


def _degree(e: sp.Expr, v) -> int | None:
    """Degree of ``e`` in ``v`` when ``e`` is a polynomial in ``v`` (else ``None``: ``v``
    inside a function)."""
    try:
        return sp.Poly(e, v).degree()
    except sp.PolynomialError:
        return None


def _solved_relations(family: SteadyFamily) -> dict:
    out = {}
    for r in family.relations:
        r = sp.numer(sp.together(as_expr(r)))
        for c in family.constants:
            if c not in out and _degree(r, c) == 1:
                out[c] = sp.solve(r, c)[0]
                break
    return out


def _search_chart(system) -> FieldChart:
    """The phase-space chart, or the natural quasi-velocities when they show more cyclic
    coordinates (the sleigh's heading)."""
    fc = phase_space_chart(system, {})
    if getattr(system, "natural_frame", None):
        from geomech.mechanics.analysis.natural_chart import natural_chart

        try:
            nat = natural_chart(system, {c: c for c in system.phase_space.coords},
                                poisson=False)
        except ValueError:
            return fc
        if nat.name == "natural quasi-velocities" and \
                len(cyclic_split(nat)[1]) > len(cyclic_split(fc)[1]):
            return nat
    return fc


def _branches(eqs: list, variables: tuple) -> list[tuple[dict, list]]:
    """Branches ``(fixed values, relations)`` of the equations: a factor that is a single
    variable fixes it at 0, other factors become relations."""
    policy = default_policy()
    work = [({}, [e for e in eqs])]
    done: list = []
    while work and len(done) < _MAX_BRANCHES:
        fixed, rest = work.pop()
        rest = [sp.factor_terms(sp.numer(sp.together(e.xreplace(fixed)))) for e in rest]
        rest = [e for e in rest if not policy.is_zero(e)]
        if not rest:
            done.append((fixed, []))
            continue
        e, others = rest[0], rest[1:]
        factors = [f for f, _ in sp.factor_list(e)[1] if not nowhere_zero(f)]
        if not any(f.has(*variables) for f in factors):
            continue                                # a non-zero constant: no solution
        for f in factors:
            if f in variables:
                work.append(({**fixed, f: sp.S.Zero}, others))
            elif f.has(*variables):
                done_rel = _branch_with_relation(fixed, f, others, variables)
                if done_rel is not None:
                    done.append(done_rel)
    return done


def _branch_with_relation(fixed: dict, rel: sp.Expr, others: list, variables) -> tuple | None:
    """A branch closed by the relation ``rel``: the other equations must vanish on it
    (checked after solving ``rel`` linearly for one variable), else it is dropped."""
    policy = default_policy()
    for v in variables:
        if v not in fixed and _degree(rel, v) == 1:
            sol = sp.solve(rel, v)[0]
            if all(policy.is_zero(sp.together(e.xreplace(fixed).xreplace({v: sol})))
                   for e in others):
                return fixed, [rel]
            return None
    return (fixed, [rel]) if not others else None


def find_steady_families(system) -> list[SteadyFamily]:
    """Families of steady motions found by solving the reduced equations exactly (see the
    module docstring); empty when the equations are larger than the search allows."""
    fc = _search_chart(system)
    if fc.rhs is None:                  # a large system: no explicit field to solve
        return []
    R, C = cyclic_split(fc)
    rates = fc.rates
    eqs = [rates[v] for v in R]
    if sum(sp.count_ops(e) for e in eqs) > _MAX_OPS:
        return []
    consts = {v: sp.Symbol(f"{v.name}0", real=True) for v in R}
    out = []
    for k, (fixed, rels) in enumerate(_branches(eqs, R), 1):
        sub = {v: fixed.get(v, consts[v]) for v in R}
        used = tuple(consts[v] for v in R if v not in fixed)
        relations = tuple(sp.factor(r.xreplace(sub)) for r in rels)
        at, state = _regular_state(system, fc, C, sub)
        if state is None:               # the chart is singular at every trial value
            continue
        what = ("relative equilibria" if not relations else
                "relative equilibria with " + ", ".join(f"{sp.sstr(r)} = 0" for r in relations))
        where = ", ".join(f"{c} = {sp.sstr(at[c])}" for c in C)
        out.append(SteadyFamily(f"steady motions {k}", used, state, relations, {},
                                f"{what} (found by solving the reduced equations in "
                                f"{fc.name}; cyclic {where})"))
    return out


#: Values tried for the cyclic coordinates, in order: any value gives a steady motion, but
#: the phase-space chart must be regular there (Z-X-Z Euler angles are singular at theta = 0).
_CYCLIC_TRIALS = (sp.S.Zero, sp.pi / 2, sp.pi / 3, sp.S.One)


def _regular_state(system, fc: FieldChart, cyclic: tuple, sub: dict) -> tuple:
    """``(values of the cyclic coordinates, state)`` at the first trial value where every
    phase-space coordinate of the state is finite; ``(None, None)`` when none is."""
    for value in _CYCLIC_TRIALS:
        at = {c: value for c in cyclic}
        state = _state_in_phase_space(system, fc, {**at, **sub})
        if not any(as_expr(v).has(sp.zoo, sp.nan, sp.oo, -sp.oo) for v in state.values()):
            return at, state
    return None, None


def _state_in_phase_space(system, fc: FieldChart, values: dict) -> dict:
    """``{name: value}`` of the phase-space coordinates from the values of the chart's
    variables (natural quasi-velocities converted by the kinematics)."""
    P = system.phase_space
    if fc.name == "phase space":
        return {c.name: values.get(c, sp.S.Zero) for c in P.coords}
    rates = fc.rates
    q = system.manifold.coords
    qv = {c: values.get(c, sp.S.Zero) for c in q}
    out = {c.name: qv[c] for c in q}
    for c, v in zip(q, system.manifold.velocities):
        if v in P.coords:
            out[v.name] = sp.simplify(rates[c].xreplace(values))
    return out


# =============================================================================================
# the system's families
# =============================================================================================
_VERIFIED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _verified(system, fam: SteadyFamily) -> SteadyFamily:
    """``fam`` after checking (once per system) that it is steady."""
    try:
        done = _VERIFIED.setdefault(system, set())
    except TypeError:
        done = set()
    if fam.name not in done:
        if not verify_family(system, fam):
            raise ValueError(f"the declared family {fam.name!r} of {system.name} is not "
                             "steady (the reduced field does not vanish on it)")
        done.add(fam.name)
    return fam


def steady_motions(system, search: bool = True) -> list[SteadyFamily]:
    """The declared families of ``system`` (verified; the distinguished one first) and,
    with ``search``, the families found by :func:`find_steady_families` that are not
    declared already."""
    declared = [_verified(system, f) for f in getattr(system, "steady_families", ()) or ()]
    if not search:
        return declared
    found = [f for f in find_steady_families(system)
             if not any(_same_family(f, d) for d in declared)]
    return declared + found


def _same_family(a: SteadyFamily, b: SteadyFamily) -> bool:
    """Whether ``a`` (found) is ``b`` (declared) at the defaults of ``b``, up to renaming
    the constants."""
    from itertools import permutations

    bd = {c: as_expr(b.defaults[c.name]) for c in b.constants if c.name in b.defaults}
    bstate = {k: as_expr(v).xreplace(bd) for k, v in b.state.items()}
    free = [c for c in b.constants if c not in bd]
    if len(free) != len(a.constants) or len(a.relations) != len(b.relations):
        return False
    policy = default_policy()
    for perm in permutations(free):
        ren = dict(zip(a.constants, perm))
        if all(k not in bstate or policy.is_zero(as_expr(v).xreplace(ren) - bstate[k])
               for k, v in a.state.items()):
            return True
    return False


def steady_motion(system, family: str | None = None, **constants) -> dict:
    """One steady state ``{coordinate name: value}`` of ``system``: of the family named
    ``family`` (default: the distinguished one, else the first found)."""
    declared = tuple(getattr(system, "steady_families", ()) or ())
    fams = declared if declared and (family is None or family in [f.name for f in declared]) \
        else tuple(steady_motions(system))
    if not fams:
        raise ValueError(f"no family of steady motions known for {system.name}")
    chosen = fams[0] if family is None else next((f for f in fams if f.name == family), None)
    if chosen is not None:
        if chosen in declared:
            _verified(system, chosen)
        point = phase_state(system, chosen.at(**constants))
        return {c.name: v for c, v in point.items()}
    raise ValueError(f"{family!r} is not a family of steady motions of {system.name}; "
                     f"families: {', '.join(f.name for f in fams)}")


def declared_families(families: Sequence | None) -> tuple:
    """Check a catalogue's declaration (a sequence of :class:`SteadyFamily`)."""
    if families is None:
        return ()
    fams = tuple(families)
    for f in fams:
        if not isinstance(f, SteadyFamily):
            raise TypeError(f"steady families are SteadyFamily objects, got "
                            f"{type(f).__name__}")
    return fams
