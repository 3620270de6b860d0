r"""
Stability of the upright rolling disk
=====================================

A disk rolling upright along a straight line at spin rate :math:`\omega` is a steady motion
(a relative equilibrium: the position, heading and spin angle are cyclic).  Its exact
linearisation (``S.linearize``) has a reversible characteristic polynomial
:math:`\lambda^6(\lambda^2 + k)`, so it is at best spectrally stable, iff

.. math:: (C + ma^2)\,C\,\omega^2 > m g a A

(Routh (1884); Neimark & Fufaev (1972), Ch. III).  For the uniform disk
(:math:`A = ma^2/4`, :math:`C = ma^2/2`) this is :math:`v^2 > ga/3` with :math:`v = a\omega`.
The diagram shows the real parts of the eigenvalues of the reduced linearisation against
:math:`\omega`; the dashed line is where the largest real part reaches zero.
"""

import matplotlib.pyplot as plt
import numpy as np

import geomech as gm
from geomech.reporting.stability import stability_diagram_figure

m, a, g = 1.0, 0.1, 9.81
disk = gm.examples.rolling_disk()
params = {"m": m, "a": a, "A": m * a**2 / 4, "C": m * a**2 / 2, "g": g}

fig, ax = plt.subplots(figsize=(6.4, 4.0))
stability_diagram_figure(disk, "omega", np.linspace(0.0, 40.0, 401), parameters=params, ax=ax)
critical = np.sqrt(g / (3 * a))                # v**2 = g a / 3
ax.axvline(critical, color="k", lw=0.8, ls=":", label=r"$\omega^2 = g/(3a)$")
ax.legend(loc="upper right")
print(f"critical spin {critical:.4f} rad/s, from the diagram:",
      disk.stability_diagram("omega", np.linspace(0, 40, 4001), parameters=params).crossings())
plt.show()
