"""The pseudo-Hamiltonian form (Borisov & Mamaev (2015), Prop. 7) by the parts of a Lagrangian
quadratic in the velocities (K = T^T G T, h = T^T b, p = A^T (G T omega + b)) agrees with the
route through the substituted, expanded Lagrangian; a form too large to build is refused
with its size, before any normal form is attempted."""

from __future__ import annotations

import pytest

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
