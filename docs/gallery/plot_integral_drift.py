r"""
Drift of the integrals: the rolling hoop
========================================

A hoop rolling on a horizontal plane (Tzenoff 1953; the rolling disk with
:math:`A = ma^2/2`, :math:`C = ma^2`) conserves its energy
:math:`E = \tfrac12(A + ma^2)\dot\theta^2 + \tfrac12 A\dot\psi^2\sin^2\theta
+ \tfrac12(C + ma^2)r^2 + m g a\sin\theta`.  :func:`geomech.simulate` monitors it (and the
constraint residuals) along the numerical solution; with three tolerances of the integrator
the drift shrinks with the tolerance, as it must for an exact integral of the flow.
"""

import matplotlib.pyplot as plt
import numpy as np

import geomech as gm

H = gm.examples.hoop(m=1, a=1, g=9.81)
x0 = {"x": 0, "y": 0, "theta": 1.2, "psi": 0, "phi": 0,
      "thetadot": 0.0, "psidot": 1.5, "phidot": 2.0}
fig, ax = plt.subplots(figsize=(6, 4))
for rtol in (1e-6, 1e-9, 1e-12):
    res = gm.simulate(H, x0, (0, 10), rtol=rtol, atol=rtol * 1e-2,
                      t_eval=np.linspace(0, 10, 500))
    E = res.series["energy"]
    ax.semilogy(res.t[1:], np.abs(E[1:] - E[0]) / abs(E[0]) + 1e-17, label=f"rtol={rtol:g}")
    print(f"rtol={rtol:g}: energy drift {res.drift['energy']:.2e}")
ax.set_xlabel("$t$")
ax.set_ylabel(r"$|E(t) - E(0)|/|E(0)|$")
ax.set_title("Rolling hoop: relative energy drift (DOP853)")
ax.legend()
plt.show()
