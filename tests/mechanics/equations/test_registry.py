"""One registry of forms, and systems whose metadata are given at construction.

Every form is registered the same way (:func:`register_method`) and handles ``explicit`` the
same way; the implicit equations (``explicit=False``) agree with the explicit ones at random
points for every built-in form, including Tzenoff's (its own implicit builder).
A system's natural frame is given to the constructor, read-only, checked, and survives
pickling.
"""

from __future__ import annotations

import pickle

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.equations import available_methods, get_method, registry
from geomech.mechanics.system import NonholonomicSystem

BUILTIN = {"lagrange_dalembert", "quasi_velocities", "voronets", "chaplygin", "appell",
           "tzenoff", "vakonomic"}


_N = gm.Manifold("N", "x y phi", parameters="m I a")


def _sleigh(**kw):
    N = _N
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    m, I, a = N.parameters
    f = -xd * sp.sin(phi) + yd * sp.cos(phi)
    L = m / 2 * (xd**2 + yd**2) + I / 2 * phid**2 + m * a * phid * f
    return N, NonholonomicSystem(N, L, [f], name="sleigh", **kw)


def test_every_builtin_form_is_registered_alike():
    assert BUILTIN <= set(available_methods())
    for name in BUILTIN:
        run = get_method(name)
        entry = registry._FORMS[name]
        assert run.__wrapped__ is entry.derive
    # only the form that cannot defer its solve brings its own implicit builder
    assert {n for n in BUILTIN if registry._FORMS[n].implicit is not None} == {"tzenoff"}


def test_unknown_and_bad_names():
    with pytest.raises(ValueError, match="unknown method"):
        get_method("no_such_form")
    with pytest.raises(TypeError):
        get_method(3)
    with pytest.raises(TypeError):
        registry.register_method("")
    _, S = _sleigh()
    with pytest.raises(TypeError, match="explicit"):
        get_method("voronets")(S, explicit="no")


@pytest.mark.parametrize("name", ["lagrange_dalembert", "voronets", "quasi_velocities",
                                  "tzenoff"])
def test_implicit_agrees_with_explicit(name):
    _, S = _sleigh()
    explicit = get_method(name)(S)
    implicit = get_method(name)(S, explicit=False)
    assert implicit is get_method(name)(S, explicit=False)        # cached without options
    assert implicit.mass_matrix_form() is not None
    assert explicit.agrees_with(implicit)
    assert implicit.agrees_with(S.equations("lagrange_dalembert"))


def test_natural_frame_given_at_construction():
    N, plain = _sleigh()
    assert plain.natural_frame is None
    x, y, phi = N.coords
    frame = {"frame": (N.vector_field([sp.cos(phi), sp.sin(phi), 0]),
                       N.vector_field([0, 0, 1])), "names": ("v", "omega")}
    _, S = _sleigh(natural_frame=frame)
    assert S.natural_frame["names"] == ("v", "omega")
    assert S == plain                       # metadata do not change the mechanics
    with pytest.raises(AttributeError):
        S.natural_frame = None
    S.natural_frame["names"] = ("changed",)  # a copy: the system is unchanged
    assert S.natural_frame["names"] == ("v", "omega")
    T = pickle.loads(pickle.dumps(S))
    assert T == S and T.natural_frame["names"] == ("v", "omega")
    # frame="natural" reads the frame given at construction: the compact equations are the
    # Hamel equations in that frame, derived independently by the quasi_velocities form
    ce = S.compact_equations(frame="natural")
    assert [str(e) for e in ce.quasi_velocities] == ["v", "omega"]
    hamel = S.equations("quasi_velocities", frame=frame["frame"], names="v omega")
    pol = default_policy()
    for eta in ce.quasi_velocities:
        e = ce.dynamics[eta]
        for sym, val in reversed(ce.abbreviations):
            e = e.xreplace({sym: val})
        assert pol.is_zero(e - hamel.form_rhs[eta])


def test_natural_frame_is_checked():
    N, _ = _sleigh()
    with pytest.raises(TypeError, match="natural_frame"):
        _sleigh(natural_frame=[N.vector_field([1, 0, 0])])
    with pytest.raises(ValueError, match="2 independent velocities"):
        _sleigh(natural_frame={"frame": (N.vector_field([0, 0, 1]),)})
    M = gm.Manifold("M", "u v w")
    with pytest.raises(TypeError, match="vector fields on N"):
        _sleigh(natural_frame={"frame": (M.vector_field([0, 0, 1]),) * 2})


def test_catalogue_systems_carry_their_frame():
    S = gm.examples.chaplygin_sleigh()
    assert [str(n) for n in S.natural_frame["names"]]
    with pytest.raises(AttributeError):
        S.natural_frame = None


# -- one class per form ----------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_each_form_returns_its_registered_class(name):
    """The registry pairs the name with the class; the class names its form, states its
    formula and cites its published source; its equations agree with Lagrange--d'Alembert
    (the vakonomic ones, on a non-integrable constraint, do not: Kozlov (1982))."""
    _, S = _sleigh()
    cls = registry.form_entry(name).cls
    assert cls is not gm.EquationsOfMotion and issubclass(cls, gm.EquationsOfMotion)
    assert cls.form == name and getattr(gm, cls.__name__) is cls
    assert "math::" in cls.__doc__ or ":math:" in cls.__doc__
    assert any(str(year) in cls.__doc__ for year in range(1890, 2030))
    eq = S.equations(name)
    assert type(eq) is cls and eq.method == name
    if name != "vakonomic":
        assert eq.agrees_with(S.equations("lagrange_dalembert"))
        assert type(get_method(name)(S, explicit=False)) is cls


def test_a_form_class_holds_only_its_form():
    _, S = _sleigh()
    eq = S.equations("voronets")
    with pytest.raises(ValueError, match="'voronets' form, not 'appell'"):
        gm.VoronetsEquations(S, "appell", eq.equations, eq.rhs)
    with pytest.raises(ValueError, match="no mass-matrix form"):
        S.equations("vakonomic").mass_matrix_form()


def test_a_user_form_registered_by_its_class():
    class _MyEquations(gm.EquationsOfMotion):
        """A user's form: Lagrange--d'Alembert's right-hand sides re-labelled."""

        form = "_my_form"

    @registry.register_method(_MyEquations)
    def _derive(system):
        ld = system.equations("lagrange_dalembert")
        return _MyEquations(system, "_my_form", ld.equations, ld.rhs)

    try:
        _, S = _sleigh()
        assert registry.form_entry("_my_form").cls is _MyEquations
        eq = get_method("_my_form")(S)
        assert isinstance(eq, _MyEquations) and eq.agrees_with(S.equations("voronets"))
        with pytest.raises(TypeError, match="not a form class"):
            registry.register_method(int)
    finally:
        registry._FORMS.pop("_my_form", None)
