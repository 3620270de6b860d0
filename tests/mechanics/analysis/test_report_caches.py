"""Quantities computed once per system or per field and read by several report sections
(issue 22): the kept result equals a fresh derivation by another route, and callers get
copies they may change."""

from __future__ import annotations

import sympy as sp

import geomech as gm
from geomech.core.zero import is_zero
from geomech.core.zero.rewrite import rational_rewrite, rewrite_jointly
from geomech.mechanics.analysis.field_charts import denominator_factors
from geomech.mechanics.analysis.noether import linear_integrals, noether_fields
from geomech.mechanics.analysis.pseudo_hamiltonian import implicit_hamiltonian
from geomech.mechanics.analysis.symmetry import check_symmetry, find_point_symmetries


def test_point_symmetries_kept_equal_a_fresh_search():
    S = gm.examples.chaplygin_sleigh()
    kept = find_point_symmetries(S)
    kept.clear()                                  # a copy: the kept basis is untouched
    again = find_point_symmetries(S)
    fresh = find_point_symmetries(S, verify=False)   # not kept: searched again
    assert len(again) == len(fresh) == 3          # se(2) (Borisov & Mamaev (2015), §3.3)
    assert [u.components for u in again] == [u.components for u in fresh]
    assert all(c.is_symmetry for c in check_symmetry(S, again))


def test_linear_integrals_kept_equal_the_integrals_of_the_fields():
    S = gm.examples.chaplygin_sleigh(a=0)         # I*phidot (Borisov & Mamaev (2015), §3.3)
    kept = linear_integrals(S)
    fresh = linear_integrals(S, fields=noether_fields(S))
    assert [F.on_phase_space for F in kept] == [F.on_phase_space for F in fresh]
    assert all(S.is_first_integral(F.on_phase_space) for F in kept)
    kept.clear()
    assert len(linear_integrals(S)) == len(fresh) >= 1


def _preorder_factors(exprs, variables):
    """The factors by sympy's preorder traversal of every node (the reference)."""
    out = []
    for comp in exprs:
        for p in sp.preorder_traversal(comp):
            if isinstance(p, sp.Pow) and p.exp.is_negative:
                d = p.base
            elif isinstance(p, (sp.tan, sp.sec)):
                d = sp.cos(p.args[0])
            elif isinstance(p, (sp.cot, sp.csc)):
                d = sp.sin(p.args[0])
            else:
                continue
            for f in sp.Mul.make_args(sp.factor_terms(d)):
                if f.free_symbols & set(variables) and f not in out:
                    out.append(f)
    return out


def test_denominator_factors_visit_each_subtree_once():
    """The 2-link snake's field repeats its sub-expressions: the same factors in the same
    order as the traversal of every node; a kept result is not shared with callers."""
    v = gm.examples.chaplygin_snake(2).vector_field()
    X = v.manifold.coords
    got = denominator_factors(v.components, X)
    assert got == _preorder_factors(v.components, X)
    got.clear()
    assert denominator_factors(v.components, X) == _preorder_factors(v.components, X)
    x, y = sp.symbols("x y")
    e = 1 / (x - 1) + sp.tan(y) / (x - 1) + sp.cot(x * y)
    assert denominator_factors([e, e**2], [x, y]) == _preorder_factors([e, e**2], [x, y])


def test_frame_quadratic_form_kept_is_a_copy():
    """The implicit Hamiltonian's K (T^T G T of the graph frame) is the Hessian of the
    Lagrangian restricted to the constraints in the independent velocities; a caller
    changing its copy does not change the next one."""
    S = gm.examples.chaplygin_sleigh()
    K, h, L0, p = implicit_hamiltonian(S)
    Ls, u = S.restricted(S.lagrangian), S.independent_velocities
    assert all(is_zero(sp.diff(Ls, u[i], u[j]) - K[i, j])
               for i in range(len(u)) for j in range(len(u)))
    K[0, 0] = 12345
    assert implicit_hamiltonian(S)[0][0, 0] != 12345


def test_rational_rewrite_kept_is_the_joint_map():
    t, x = sp.symbols("t x")
    e = sp.sin(t) * x / (2 + sp.cos(2 * t))
    assert rational_rewrite(e) == rewrite_jointly([e], full=False).exprs[0]
    assert rational_rewrite(e) is rational_rewrite(e)


def test_declared_family_by_name_without_the_search():
    """A declared family named for the diagram is the one the full list (declared, then
    found) names first: the state and chart are the same without the search."""
    from geomech.mechanics.analysis.stability_diagram import steady_state_with

    S = gm.examples.chaplygin_sleigh()
    state, chart = steady_state_with(S, "straight run", "speed")
    fam = next(f for f in S.steady_motions(search=True) if f.name == "straight run")
    assert (state, chart) == (fam.at(**{c.name: c for c in fam.constants}), fam.chart)
