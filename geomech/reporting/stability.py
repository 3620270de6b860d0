r"""The "Steady motions and stability" section of a report and the stability diagram figure.

For each family of steady motions (declared by the catalogue, or found by solving the reduced
equations; :meth:`~geomech.mechanics.system.NonholonomicSystem.steady_motions`) the section
gives its constants and relation, the chart of the linearisation, the conditions of
stability in the parameters and constants
(:meth:`~geomech.mechanics.analysis.linearization.Linearization.stability_conditions`) and
the verdicts at the report's numeric values (:func:`~geomech.reporting.simulation.
numeric_defaults`) for a few values of the constant.  :func:`stability_diagram_figure`
draws the real parts of the eigenvalues against a parameter (a matplotlib ``Figure``, for
the HTML report and the gallery).

>>> import geomech as gm
>>> sec = stability_section(gm.examples.chaplygin_sleigh())
>>> sec.title
'Steady motions and stability'
>>> any("speed > 0" in str(line) for line in sec.lines)
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from geomech.core.budget import check
from geomech.core.opcount import count_ops
from geomech.reporting.model import Section
from geomech.reporting.simulation import numeric_defaults

__all__ = ["stability_section", "stability_diagram_figure", "SAMPLE_CONSTANTS",
           "CONDITIONS_OPS", "MATRIX_OPS"]

#: values of a family's constant at which the verdicts are reported
SAMPLE_CONSTANTS = (-5, -1, 1, 5)
#: larger characteristic polynomials get verdicts only, not symbolic conditions
CONDITIONS_OPS = 3000
#: a larger reduced Jacobian gets no characteristic polynomial in the symbols (Staude's
#: permanent rotations of the heavy top: nested radicals in the cone parameter)
MATRIX_OPS = 2000
_MAX_FAMILIES = 4
def _family_lines(sys_, fam, params: dict) -> list:
    """Lines for one family: the linearisation, its conditions and sample verdicts."""
    out = []
    if fam.relations or len(fam.constants) > 2:
        return [("  not linearised here (a family with a relation); linearise one of its "
                 "states with S.linearize(S.steady_motion(family, ...))", None)]
    lin = sys_.linearize(fam.at(**{c.name: c for c in fam.constants}), chart=fam.chart)
    out.append((f"  linearised in {lin.chart}; cyclic coordinates: "
                f"{', '.join(map(str, lin.cyclic)) or 'none'}", None))
    for note in lin.notes:
        out.append((f"  {note}", None))
    if lin.mass_form is not None:       # heavy systems (the bicycle): no polynomial formed
        size, what = None, "linearisation is in mass-matrix form (a large system)"
    elif (ops := count_ops(lin.reduced_matrix)) > MATRIX_OPS:
        size, what = None, (f"reduced Jacobian has {ops} operations (over {MATRIX_OPS}; "
                            "nested radicals in the constants)")
    else:
        size = count_ops(lin.characteristic_polynomial(factored=False))
        what = f"characteristic polynomial has {size} operations"
    if size is None or size > CONDITIONS_OPS:
        out.append((f"  conditions: the {what}; the symbolic conditions are not formed here "
                    "(lin.stability_conditions()); verdicts at numbers below", None))
    else:
        conds = lin.stability_conditions()
        out.append((f"  criterion: {conds.meaning}", None))
        out += [("    ", ineq) for ineq in conds.inequalities]
        out += [("    (non-degenerate where)", ne) for ne in conds.nondegenerate]
    free = [c for c in fam.constants if c.name not in fam.defaults]
    if not free:
        values = {k.name: x for k, x in params.items()}
        verdict = lin.stability({**values, **fam.defaults})
        out.append((f"  at the default parameters: {verdict}", None))
    if len(free) == 1:
        c = free[0]
        fixed = {k: v for k, v in fam.defaults.items()}
        at = "".join(f", {k} = {v}" for k, v in fixed.items())
        values = {k.name: x for k, x in params.items()}
        span = dict(fam.ranges).get(c.name)
        samples = SAMPLE_CONSTANTS if span is None else [
            sp.nsimplify(x) for x in np.linspace(float(span[0]), float(span[1]), 5)]
        for v in samples:
            check()
            verdict = lin.stability({**values, **fixed, c.name: v})
            out.append((f"  at the default parameters{at} and {c} = {v}: {verdict.verdict}",
                        None))
        if span is not None:
            out.append(_crossings_line(lin, c.name, span, {**values, **fixed}))
    return out


def _crossings_line(lin, name: str, span, values: dict) -> tuple:
    """Where the largest real part (the family's zero roots aside) changes sign on the range
    of interest of the constant (bracketed on 201 values, refined by Brent's method)."""
    from geomech.mechanics.analysis.stability_diagram import StabilityDiagram

    grid = np.linspace(float(span[0]), float(span[1]), 201)
    d = StabilityDiagram.of(lin, name, grid, values)
    where = ", ".join(f"{x:.9f}" for x in d.refined_crossings()) or "nowhere"
    return (f"  the largest real part (the family's zero roots aside) changes sign at {name} "
            f"= {where} on [{span[0]}, {span[1]}] (bracketed on 201 values, refined by "
            "Brent's method)", None)


def stability_section(sys_, overrides: Mapping | None = None,
                      search: bool | None = None) -> Section:
    """The report section on steady motions: families, conditions, verdicts.

    ``search``: also solve the reduced equations for further families
    (:func:`~geomech.mechanics.analysis.steady_motions.find_steady_families`); by default
    only when the system declares none (a declared family is the one a reader asks about,
    and the search is costly on large equations)."""
    s = Section("Steady motions and stability")
    declared = tuple(getattr(sys_, "steady_families", ()) or ())
    fams = sys_.steady_motions(search=not declared if search is None else search)
    if not fams:
        return s.add("no family of steady motions declared or found by solving the reduced "
                     "equations (the search is skipped for equations over a size limit)")
    if declared and search is None:
        s.add("the declared families of the system (the search of the reduced equations for "
              "others was not run: S.steady_motions())")
    params, _, origin = numeric_defaults(sys_, overrides)
    s.add(f"verdicts at {origin}")
    for k, fam in enumerate(fams[:_MAX_FAMILIES]):
        check()
        consts = ", ".join(map(str, fam.constants)) or "no constants"
        s.add(f"family {fam.name!r}{' (distinguished)' if k == 0 and sys_.steady_families else ''}"
              f": constants {consts}")
        if fam.description:
            s.add(f"  {fam.description}")
        for r in fam.relations:
            s.add("  relation", sp.Eq(r, 0, evaluate=False))
        for text, expr in _family_lines(sys_, fam, params):
            if expr is None:
                s.add(text)
            else:
                s.add(text, expr)
    if len(fams) > _MAX_FAMILIES:
        s.add(f"... and {len(fams) - _MAX_FAMILIES} more families (S.steady_motions())")
    return s


def stability_diagram_figure(sys_, parameter: str | None = None,
                             values: Sequence | None = None, steady=None,
                             parameters: Mapping | None = None, ax=None):
    """The stability diagram of ``sys_`` as a matplotlib ``Figure``: the real parts of the
    eigenvalues of the reduced linearisation against ``parameter`` (default: the constant
    of the distinguished family, on ``values`` default ``linspace(-10, 10, 201)``), with the
    parameters from ``parameters`` or the report's defaults.

    >>> import geomech as gm
    >>> fig = stability_diagram_figure(gm.examples.rolling_disk(), values=[0.5, 1.0, 4.0])
    >>> fig.axes[0].get_xlabel()
    'omega'
    """
    if parameter is None:
        fams = sys_.steady_motions(search=not sys_.steady_families)
        if not fams or not fams[0].constants:
            raise ValueError(f"{sys_.name} has no family of steady motions with a constant; "
                             "pass parameter= and steady=")
        parameter = fams[0].constants[0].name
    if values is None:
        values = np.linspace(-10.0, 10.0, 201)
    if parameters is None:
        defaults, _, _ = numeric_defaults(sys_)
        parameters = {k.name if isinstance(k, sp.Symbol) else k: v for k, v in defaults.items()}
    diagram = sys_.stability_diagram(parameter, values, steady=steady, parameters=parameters)
    return diagram.plot(ax=ax)
