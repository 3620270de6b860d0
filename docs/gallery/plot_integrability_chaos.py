r"""
Integrable and chaotic: heavy tops and the rubber ball in a potential
=====================================================================

``S.integrability()`` finds for the Kovalevskaya top (Kovalevskaya 1889: :math:`I_1 = I_2 =
2I_3`, centre of mass in the equatorial plane) the energy, the area integral and her quartic
integral, and the rotation about the vertical: integrable by quadratures.  For a generic top
(:math:`I = (1, 2, 3)`, :math:`\mathbf r_0 = (1, 1, 1)`) it finds only the energy and the area
integral (no other algebraic integral exists: Husson 1906) and stays undecided.

The numerics agree (:func:`geomech.poincare_section`, :func:`geomech.max_lyapunov`): the
Poincaré sections :math:`\varphi = 0` of the Kovalevskaya top lie on curves (the section of
a common level of three integrals), those of the generic top fill regions, and the running
estimate of the largest Lyapunov exponent decays like :math:`\log T/T` for the Kovalevskaya top
but settles at a positive value for the generic top and for the rubber ball (rolling without
slipping or spinning, Borisov & Mamaev 2015, §4.6) in the Hénon--Heiles potential
:math:`U = (x^2 + y^2)/2 + x^2y - y^3/3` (Hénon & Heiles 1964).
"""

import matplotlib.pyplot as plt
import sympy as sp

import geomech as gm

kovalevskaya = gm.examples.heavy_top(2, 2, 1, 1, 1, 1, 0, 0)
generic = gm.examples.heavy_top(1, 2, 3, 1, 1, 1, 1, 1)
print("Kovalevskaya top:", kovalevskaya.integrability().integrable)
print("generic top:     ", generic.integrability().integrable)

starts = [{"theta": th, "phi": 0.0, "psi": 0.0, "thetadot": 0.9, "phidot": -0.7,
           "psidot": 0.5} for th in (0.8, 1.0, 1.2, 1.4, 1.6)]
fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
for ax, (title, top) in zip(axes[:2], (("Kovalevskaya top (integrable)", kovalevskaya),
                                       ("generic top", generic))):
    sec = gm.poincare_section(top, starts, "sin(phi)", 400.0)
    for pts in sec.points:
        ax.plot(pts[:, 0], pts[:, 3], ".", ms=1.5)
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel(r"$\theta$")
    ax.set_ylabel(r"$\dot\theta$")

ball = gm.examples.rubber_ball(m=1, a=1, I=sp.Rational(2, 5),
                               potential="x**2/2 + y**2/2 + x**2*y - y**3/3")
x0 = [0.0, 0.0, 1.2, 0.4, 0.2, 0.9, -0.7, 0.5]
runs = {"Kovalevskaya top": gm.max_lyapunov(kovalevskaya, x0[2:], 300.0),
        "generic top": gm.max_lyapunov(generic, x0[2:], 300.0),
        "rubber ball, Hénon-Heiles": gm.max_lyapunov(
            ball, [0.0, -0.1, 1.3, 0.2, 0.1, 0.4, 0.25], 300.0)}
for label, r in runs.items():
    print(f"{label}: lambda_1 estimate {r.maximal:.3f} at T = 300")
    axes[2].semilogx(r.times, r.history[:, 0], label=label)
axes[2].axhline(0.0, color="0.5", lw=0.8)
axes[2].set_xlabel("T")
axes[2].set_ylabel(r"running estimate of $\lambda_1$")
axes[2].legend(fontsize="small")
fig.tight_layout()
plt.show()
