r"""
The rattleback reverses its spin
================================

A rattleback -- a body with a convex bottom whose principal axes of inertia are turned
against the axes of curvature of its surface -- spun about the vertical in its "wrong"
sense wobbles, stops spinning and turns the other way (Walker 1896; Borisov & Mamaev 2015).
The catalogue's :func:`geomech.examples.rattleback` carries a published parameter set;
:func:`geomech.animate` shows the body from above turning one way, then the other.

(The animation is made when the catalogue has the rattleback.)
"""

import numpy as np

import geomech as gm

if hasattr(gm.examples, "rattleback"):
    R = gm.examples.rattleback()
    x0 = R.steady_motion(spin=-3.0)            # the unstable sense of rotation
    x0 = {k: float(v) + (0.01 if str(k).endswith("dot") and float(v) == 0 else 0.0)
          for k, v in x0.items()}              # a small wobble starts the reversal
    res = gm.simulate(R, x0, (0, 40), implicit=True, t_eval=np.linspace(0, 40, 800))
    anim = gm.animate(res, frames=90, size=(5.0, 5.0), title="rattleback")
else:
    anim = "gm.examples.rattleback() is not in this version of geomech yet"
anim  # noqa: B018 - shown by the gallery (its _repr_html_: an animated GIF)
