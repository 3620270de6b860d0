r"""
A Poincaré section: the sleigh in a harmonic potential
======================================================

With a potential :math:`U(x, y, \varphi)` the sleigh's equations (Borisov & Mamaev 2015,
(3.18)) are

.. math:: m\dot v = m a\omega^2 - \cos\varphi\,U_x - \sin\varphi\,U_y, \qquad
          I\dot\omega = -m a\omega v - U_\varphi .

For :math:`U = \tfrac k2(x^2 + y^2)` the energy is the only obvious integral.
:func:`geomech.poincare_section` records the crossings of the plane :math:`x = 0` with
:math:`\dot x > 0` (``direction=1``) of several orbits on one energy level (located on the
solver's dense output: every point lies on :math:`x = 0` to rounding); we draw them in the
plane :math:`(\varphi \bmod 2\pi, \omega)`.  ``client="processes"`` or a dask ``Client``
would run the orbits in parallel, with the same points.  Since :math:`\dot\omega` is proportional to
:math:`\omega`, the angular velocity never changes sign: orbits stay in their half-plane.
"""

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import geomech as gm

k = sp.Symbol("k", positive=True)
S = gm.examples.chaplygin_sleigh(potential=lambda x, y, phi: k * (x**2 + y**2) / 2)
V = S.equations("quasi_velocities", **S.natural_frame).vector_field(on="form")
print(V.manifold.coords)                 # (x, y, phi, v, omega)


def start(y0, omega0, energy=1.0):
    """On x = 0 with the speed v fixed by the energy level."""
    v0 = np.sqrt(max(2 * energy - 1.5 * omega0**2 - y0**2, 0.0))
    return [0.0, y0, 0.0, v0, omega0]


starts = [(0.2, 0.3), (0.5, -0.4), (0.8, 0.1), (-0.4, 0.6)]
sec = gm.poincare_section(V, [start(*s) for s in starts], "x", (0, 600), direction=1,
                          parameters={"m": 1.0, "I": 1.5, "a": 0.4, "k": 1.0}, rtol=1e-9,
                          atol=1e-11)
print(sec)                               # the residual max|x| at the points: rounding level

fig, ax = plt.subplots(figsize=(6, 4.5))
for (y0, omega0), pts in zip(starts, sec.points):
    ax.plot(np.mod(pts[:, 2], 2 * np.pi), pts[:, 4], ".", ms=2,
            label=rf"$y_0={y0}, \omega_0={omega0}$")
ax.set_xlabel(r"$\varphi$ mod $2\pi$")
ax.set_ylabel(r"$\omega$")
ax.legend(fontsize="small", markerscale=4)
ax.set_title(r"Sleigh in $U = (x^2 + y^2)/2$: section $x = 0$, $\dot x > 0$, $E = 1$")
plt.show()
