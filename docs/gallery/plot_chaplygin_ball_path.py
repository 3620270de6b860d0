r"""
The contact path of Chaplygin's ball
====================================

A balanced, dynamically asymmetric ball (centre of mass at the geometric centre, principal
moments :math:`I_1 < I_2 < I_3`) rolls without slipping on a plane (Chaplygin 1903;
Borisov & Mamaev 2015, §5.4).  The reduced system is integrable, but the point of contact
traces a wavy, drifting curve on the plane (axes not to scale below).  geomech integrates
the mass-matrix form :math:`M(x)z = F(x)` of the Lagrange–d'Alembert equations
(``implicit=True``: no symbolic inversion) and monitors the energy and the constraints.
"""

import matplotlib.pyplot as plt
import numpy as np

import geomech as gm

B = gm.examples.chaplygin_ball(m=1, R=1, I1=1, I2=2, I3=3)
print(B.phase_space.coords)

x0 = {"x": 0, "y": 0, "theta": 1.0, "phi": 0.2, "psi": 0.0,
      "thetadot": 0.3, "phidot": 0.8, "psidot": 0.5}
res = gm.simulate(B, x0, (0, 40), implicit=True, t_eval=np.linspace(0, 40, 2000),
                  rtol=1e-9, atol=1e-10)
print("relative energy drift:", res.drift["energy"])

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot(res["x"], res["y"], lw=1)
ax.plot(res["x"][0], res["y"][0], "ko", ms=4, label="start")
ax.set_xlabel("$x$")
ax.set_ylabel("$y$")
ax.set_title("Chaplygin ball: path of the point of contact")
ax.legend()
plt.show()
