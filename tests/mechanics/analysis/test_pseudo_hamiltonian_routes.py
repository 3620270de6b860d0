"""The pseudo-Hamiltonian form (Borisov & Mamaev (2015), Prop. 7) by the parts of a Lagrangian
quadratic in the velocities (K = T^T G T, h = T^T b, p = A^T (G T omega + b)) agrees with the
route through the substituted, expanded Lagrangian; a form too large to build is refused
with its size, before any normal form is attempted."""

from __future__ import annotations

import pytest
import sympy as sp

import geomech as gm
import geomech.mechanics.analysis.pseudo_hamiltonian as ph
from geomech.core.zero import default_policy


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "chaplygin_ball", "rolling_disk",
                                  "veselova", "snakeboard"])
def test_quadratic_parts_agree_with_the_expanded_lagrangian(name, monkeypatch):
    new = ph.system_pseudo_hamiltonian(gm.examples.get(name))
    monkeypatch.setattr(ph, "_frame_quadratic_form", lambda *a, **k: None)
    old = ph.system_pseudo_hamiltonian(gm.examples.get(name))
    pol = default_policy()
    assert pol.is_zero(new.hamiltonian - old.hamiltonian)
    assert all(pol.is_zero(a - b) for a, b in zip(new.matrix, old.matrix))
    assert all(pol.is_zero(new.quasi_velocities[w] - e) for w, e in old.quasi_velocities.items())
    assert all(pol.is_zero(new.momentum_of[m] - e) for m, e in old.momentum_of.items())


def test_a_form_too_large_is_refused_with_its_size():
    """The 3-link snake's inverse Legendre map has entries of ~10^5 operations."""
    with pytest.raises(ph.FormTooLarge, match=r"entry of \d+ operations") as exc:
        ph.system_pseudo_hamiltonian(gm.examples.chaplygin_snake())
    ops = int(str(exc.value).split("entry of ")[1].split()[0])
    assert ops > ph.LEGENDRE_OPS_LIMIT


@pytest.mark.parametrize("name", ["chaplygin_sleigh", pytest.param("chaplygin_ball",
                                  marks=pytest.mark.slow), "rolling_disk", "snakeboard"])
def test_implicit_hamiltonian_agrees_with_the_built_form(name):
    """H = 1/2 p^T K^-1 p - L0 (graph frame, K^-1 unexpanded) is the built form's H."""
    S = gm.examples.get(name)
    form = ph.system_pseudo_hamiltonian(S)
    K, h, L0, p = ph.implicit_hamiltonian(S)
    P = sp.Matrix(p) - h
    H = (P.T * K.inv() * P)[0] / 2 - L0
    assert tuple(p) == tuple(form.momenta)
    assert default_policy().is_zero(H - form.hamiltonian)


@pytest.mark.slow
def test_snake_hamiltonian_section_is_implicit_and_not_poisson():
    """The 3-link snake: the expanded form is refused (FormTooLarge), the section gives H with
    K^-1 unexpanded and decides Jacobi by the Frobenius test (the constraints are not
    holonomic: growth vector (2, 3, 5))."""
    from geomech.reporting.sections import _hamiltonian_section

    S = gm.examples.get("chaplygin_snake")
    with pytest.raises(ph.FormTooLarge):
        ph.system_pseudo_hamiltonian(S)
    sec = _hamiltonian_section(S)
    text = " ".join(str(t) for t, _ in sec.lines)
    assert sec.status == "ok" and "almost-Poisson" in text
    assert S.constraint_distribution().growth_vector()[-1] == 5


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "rolling_disk"])
def test_momentum_of_inverts_the_legendre_map(name):
    """The Legendre map M(q, omega) composed with its inverse
    omega(q, M) is the identity."""
    pol = default_policy()
    form = ph.system_pseudo_hamiltonian(gm.examples.get(name))
    assert set(form.momentum_of) == set(form.momenta) and len(form.momentum_of) == len(form.momenta)
    for M in form.momenta:
        assert pol.is_zero(form.momentum_of[M].xreplace(form.quasi_velocities) - M)
    for w, e in form.quasi_velocities.items():
        assert pol.is_zero(e.xreplace(form.momentum_of) - w)


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "chaplygin_ball", "rolling_disk",
                                  "suslov"])
def test_jacobi_by_the_structure_functions_agrees_with_the_jacobiator(name):
    """Prop. 7: Jac(q_i, M_s, M_r) = sum_mu d^mu_sr (a_mu - ...)_i, so a non-zero d answers
    the Jacobi test; the Jacobiator of the built J must give the same answer."""
    form = ph.system_pseudo_hamiltonian(gm.examples.get(name))
    assert form.satisfies_jacobi() == form.structure.satisfies_jacobi()


def test_jacobi_of_a_holonomic_frame_is_decided_by_the_structure():
    """All d vanish (a coordinate frame): the Jacobi test falls through to J's Jacobiator,
    which holds (the canonical bracket)."""
    x, y, xd, yd = sp.symbols("x y xdot ydot", real=True)
    form = ph.pseudo_hamiltonian_form([x, y], [xd, yd], (xd**2 + yd**2)/2 - x**2,
                                      [[1, 0]], [[0, 1]], momenta="p")
    assert all(e == 0 for row in form.d for col in row for e in col)
    assert form.satisfies_jacobi() is True


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "chaplygin_ball", "convex_body_on_plane"])
def test_prop7_matrix_is_skew_and_its_entries_are_compact_forms(name):
    """J is built skew from entries compacted once: J + J^T = 0 entry by entry, and each
    upper entry equals (as a function) the compact form of itself."""
    from geomech.core.algebra.normal_form import compact
    J = ph.system_pseudo_hamiltonian(gm.examples.get(name)).matrix
    assert J + J.T == sp.zeros(*J.shape)
    pol = default_policy()
    n = J.rows
    assert all(pol.is_zero(J[i, j] - compact(J[i, j]))
               for i in range(n) for j in range(i + 1, n) if J[i, j] != 0)


def test_restricted_lagrangian_from_the_restriction_agrees_with_the_full_fraction():
    """L* computed from L~|_{w=0} equals L~ at w = 0 (with a square root, the ring route),
    and p = dL~/dw at w = 0."""
    x, w, om = sp.symbols("x w omega", real=True)
    Ltil = sp.sqrt(1 + x**2)*(om + w)**2/2 + sp.cos(x)*om*w/sp.sqrt(2 + sp.sin(x)**2)
    Ls, p_of = ph._restricted_lagrangian(Ltil, [w])
    pol = default_policy()
    assert pol.is_zero(Ls - Ltil.subs(w, 0))
    assert pol.is_zero(p_of()[0] - sp.diff(Ltil, w).subs(w, 0))
