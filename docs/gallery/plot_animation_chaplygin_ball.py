r"""
Chaplygin's ball rolling
========================

A balanced, dynamically asymmetric ball (principal moments :math:`I_1 < I_2 < I_3`, centre
of mass at the geometric centre) rolls without slipping on a plane (Chaplygin 1903; Borisov
& Mamaev 2015, §5.4).  :func:`geomech.animate` draws the simulated motion from above: the
ball's outline around its centre and three of its great circles turning with the Euler
angles, its centre leaving the wavy track of the contact point behind.  The simulation
integrates the mass-matrix form of the Lagrange--d'Alembert equations (no symbolic
inversion); the result knows its system, and the catalogue gives the ball's radius, read
off the no-slip constraint.
"""

import numpy as np

import geomech as gm

B = gm.examples.chaplygin_ball(m=1, R=1, I1=1, I2=2, I3=3)
x0 = {"x": 0, "y": 0, "theta": 1.0, "phi": 0.2, "psi": 0.0,
      "thetadot": 0.3, "phidot": 0.8, "psidot": 0.5}
res = gm.simulate(B, x0, (0, 24), implicit=True, t_eval=np.linspace(0, 24, 600),
                  rtol=1e-9, atol=1e-10)
print(res.shape.label)
print("relative energy drift:", res.drift["energy"])

# %%
# The animation (80 frames, shown as an animated GIF; ``anim.save("ball.gif")`` writes it).
anim = gm.animate(res, frames=80, size=(5.5, 4.0), title="Chaplygin ball")
anim  # noqa: B018 - shown by the gallery (its _repr_html_: an animated GIF)
