r"""
A rolling disk falling slowly into a circle
===========================================

A uniform disk (:math:`A = ma^2/4`, :math:`C = ma^2/2`) rolls without slipping on a
horizontal plane, started tilted (:math:`\theta = 1.2`, :math:`\theta = \pi/2` is upright)
with spin and precession (Tzenoff 1953).  :func:`geomech.animate` shows it from above: the
rim is an ellipse whose width is the tilt (:math:`a|\cos\theta|`), and the two spokes turn
with the spin :math:`\varphi`.
"""

import numpy as np

import geomech as gm

D = gm.examples.rolling_disk(m=1, a=1, A=0.25, C=0.5, g=1)
x0 = {"x": 0, "y": 0, "theta": 1.2, "psi": 0, "phi": 0,
      "thetadot": 0, "psidot": 0.6, "phidot": 1.5}
res = gm.simulate(D, x0, (0, 14), t_eval=np.linspace(0, 14, 400))
print("relative energy drift:", res.drift["energy"])

# %%
anim = gm.animate(res, frames=70, size=(5.0, 5.0), title="rolling disk")
anim  # noqa: B018 - shown by the gallery (its _repr_html_: an animated GIF)
