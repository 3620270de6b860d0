r"""
A Poincaré section: the sleigh in a harmonic potential
======================================================

With a potential :math:`U(x, y, \varphi)` the sleigh's equations (Borisov & Mamaev 2015,
(3.18)) are

.. math:: m\dot v = m a\omega^2 - \cos\varphi\,U_x - \sin\varphi\,U_y, \qquad
          I\dot\omega = -m a\omega v - U_\varphi .

For :math:`U = \tfrac k2(x^2 + y^2)` the energy is the only obvious integral.  We compile the
field with :func:`geomech.compile_vector_field`, integrate it with
:func:`scipy.integrate.solve_ivp` and record the crossings of the plane :math:`x = 0` with
:math:`\dot x > 0` (a scipy event) on one energy level, in the plane
:math:`(\varphi \bmod 2\pi, \omega)`.  Since :math:`\dot\omega` is proportional to
:math:`\omega`, the angular velocity never changes sign: orbits stay in their half-plane.
"""

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

import geomech as gm

k = sp.Symbol("k", positive=True)
S = gm.examples.chaplygin_sleigh(potential=lambda x, y, phi: k * (x**2 + y**2) / 2)
V = S.equations("quasi_velocities", **S.natural_frame).vector_field(on="form")
f = gm.compile_vector_field(V, parameters={"m": 1.0, "I": 1.5, "a": 0.4, "k": 1.0})
print(f.coords)                          # (x, y, phi, v, omega)


def crossing(t, s):
    return s[0]


crossing.direction = 1.0                 # x increasing


def section(y0, omega0, energy=1.0):
    """Start on x = 0 with the speed v fixed by the energy level."""
    v0 = np.sqrt(max(2 * energy - 1.5 * omega0**2 - y0**2, 0.0))
    sol = solve_ivp(f, (0, 600), [0.0, y0, 0.0, v0, omega0], events=crossing,
                    method="DOP853", rtol=1e-9, atol=1e-11)
    ev = sol.y_events[0]
    return np.mod(ev[:, 2], 2 * np.pi), ev[:, 4]


fig, ax = plt.subplots(figsize=(6, 4.5))
for y0, omega0 in [(0.2, 0.3), (0.5, -0.4), (0.8, 0.1), (-0.4, 0.6)]:
    phis, omegas = section(y0, omega0)
    ax.plot(phis, omegas, ".", ms=2, label=rf"$y_0={y0}, \omega_0={omega0}$")
ax.set_xlabel(r"$\varphi$ mod $2\pi$")
ax.set_ylabel(r"$\omega$")
ax.legend(fontsize="small", markerscale=4)
ax.set_title(r"Sleigh in $U = (x^2 + y^2)/2$: section $x = 0$, $\dot x > 0$, $E = 1$")
plt.show()
