r"""
The rattleback reverses its spin
================================

A rattleback -- here the ellipsoidal one of Kane & Levinson (1982), whose principal axes of
inertia are turned against the axes of curvature of its surface -- spun about the vertical in
its "wrong" sense starts to rock, stops spinning and turns the other way.  The catalogue's
:func:`geomech.examples.rattleback` carries their parameters and this start (spin
:math:`\dot\psi = -5`, a small roll) as numeric defaults; :func:`geomech.animate` shows the
body from above -- its outline and principal sections, the short path of the contact point --
turning one way, then the other.

(The animation is made when the catalogue has the rattleback.)
"""

import numpy as np

import geomech as gm

if hasattr(gm.examples, "rattleback"):
    R = gm.examples.rattleback()
    params, x0 = R.numeric_defaults
    res = gm.simulate(R, x0, (0, 20), parameters=params, implicit=True,
                      t_eval=np.linspace(0, 20, 801))
    spin = res["yawdot"]
    print(f"spin: {spin[0]:.2f} at t = 0, {spin.min():.2f} at least, {spin.max():.2f} at most")
    # a frame every 0.1 s: at most half a radian of spin between frames (no stroboscopic
    # illusion), 10 s of GIF at 20 frames per second
    anim = gm.animate(res, frames=200, fps=20, size=(4.0, 4.0), title="rattleback")
else:
    anim = "gm.examples.rattleback() is not in this version of geomech yet"
anim  # noqa: B018 - shown by the gallery (its _repr_html_: an animated GIF)
