r"""
The Chaplygin sleigh
====================

The Chaplygin sleigh (Chaplygin 1912; Borisov & Mamaev 2015, §3.3) is a rigid body on a
horizontal plane supported by a knife edge at :math:`O_1` and smooth legs.  In the natural
quasi-velocities :math:`v` (speed of :math:`O_1` along the blade) and :math:`\omega = \dot\varphi`
its equations are Borisov & Mamaev's (3.18) with :math:`U = 0`,

.. math:: \dot v = a\omega^2, \qquad I\dot\omega = -m a\,\omega v,

and every trajectory with :math:`\omega(0) \neq 0` tends to straight-line motion along the
blade, with the centre of mass ahead of the blade (:math:`v > 0`, since
:math:`\dot v = a\omega^2 \ge 0`).
"""

import matplotlib.pyplot as plt
import numpy as np

import geomech as gm

S = gm.examples.chaplygin_sleigh()
eq = S.equations("quasi_velocities", **S.natural_frame)
V = eq.vector_field(on="form")          # on (x, y, phi, v, omega)
print(V.manifold.coords)
print(V.components)

params = {"m": 1.0, "I": 1.5, "a": 0.5}
t = np.linspace(0, 25, 1500)
fig, ax = plt.subplots(figsize=(6, 4.5))
for omega0 in (0.6, 1.2, 2.0):
    res = gm.simulate(V, {"x": 0, "y": 0, "phi": 0, "v": 0.3, "omega": omega0}, (0, 25),
                      parameters=params, t_eval=t, energy=False)
    ax.plot(res["x"], res["y"], label=rf"$\omega_0 = {omega0}$")
    k = slice(0, None, 150)
    ax.quiver(res["x"][k], res["y"][k], np.cos(res["phi"][k]), np.sin(res["phi"][k]),
              width=0.004, scale=25, alpha=0.6)
ax.set_aspect("equal")
ax.set_xlabel("$x$")
ax.set_ylabel("$y$")
ax.set_title("Chaplygin sleigh: path of the blade point $O_1$ (arrows: heading)")
ax.legend()
plt.show()
