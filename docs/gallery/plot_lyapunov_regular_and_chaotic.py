r"""
Lyapunov exponents: a chaotic flow and an integrable rolling ball
=================================================================

The maximal Lyapunov exponent :math:`\lambda_1 = \lim_{T\to\infty}\frac1T\log\|\xi(T)\|`
(:func:`geomech.max_lyapunov`: the QR method of Benettin, Galgani, Giorgilli & Strelcyn 1980,
with the compiled symbolic Jacobian) separates chaotic from regular motion.  For the Lorenz
system at :math:`(\sigma, \rho, \beta) = (10, 28, 8/3)` the running estimate settles at
:math:`\lambda_1 \approx 0.9056` (Sprott 2003); for the Chaplygin ball -- a nonholonomic
system integrable by Chaplygin's theorem (Borisov & Mamaev 2015, §5.4) -- it decays like
:math:`\log T/T` from every initial condition.  :func:`geomech.lyapunov_ensemble` runs several
initial conditions at once (serially here; ``client="processes"`` or a dask ``Client`` would
run them in parallel with the same numbers).
"""

import matplotlib.pyplot as plt
import sympy as sp

import geomech as gm

M = gm.Manifold("Lorenz", "x y z")
x, y, z = M.coords
lorenz = M.vector_field([10 * (y - x), x * (28 - z) - y, x * y - sp.Rational(8, 3) * z])
chaotic = gm.max_lyapunov(lorenz, [1.0, 1.0, 1.0], 200.0, transient=10.0, rtol=1e-9,
                          atol=1e-10)
print(f"Lorenz: lambda_1 = {chaotic.maximal:.4f} over T = 200")

ball = gm.examples.chaplygin_ball()
P = {"m": 1.0, "R": 1.0, "I1": 0.3, "I2": 0.4, "I3": 0.5}
starts = [{"x": 0, "y": 0, "theta": 1.0, "phi": 0.3, "psi": 0.2, "thetadot": 0.5,
           "phidot": 0.4, "psidot": -0.3},
          {"x": 0, "y": 0, "theta": 1.6, "phi": 0.0, "psi": 1.0, "thetadot": -0.2,
           "phidot": 0.7, "psidot": 0.4}]
regular = gm.lyapunov_ensemble(ball, starts, 200.0, parameters=P)
for r in regular:
    print(f"Chaplygin ball: lambda_1 estimate {r.maximal:.4f} at T = 200")

fig, ax = plt.subplots(figsize=(6.4, 4.2))
ax.semilogx(chaotic.times, chaotic.history[:, 0], label="Lorenz (chaotic)")
for k, r in enumerate(regular):
    ax.semilogx(r.times, r.history[:, 0], label=f"Chaplygin ball, start {k + 1} (integrable)")
ax.axhline(0.9056, color="0.5", ls=":", lw=0.8)
ax.axhline(0.0, color="0.5", lw=0.8)
ax.set_xlabel("T")
ax.set_ylabel(r"running estimate of $\lambda_1$")
ax.legend(fontsize="small")
plt.show()
