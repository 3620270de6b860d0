r"""Independent numpy fields and finite-difference tools for the stability tests.

Written without geomech, so agreement with its exact linearisations is a real check:
the Euler--Poisson field of the heavy top

.. math:: I\dot\omega = I\omega\times\omega + mg\,\gamma\times r_0, \qquad
          \dot\gamma = \gamma\times\omega ,

central-difference Jacobians, and the comparison of two spectra as multisets.
"""

import numpy as np


def euler_poisson(I, m, g, r0):
    """The Euler--Poisson field on :math:`(\\gamma, \\omega)`, numpy."""
    Imat, r0 = np.diag(np.asarray(I, float)), np.asarray(r0, float)

    def field(X):
        G, w = X[:3], X[3:]
        wdot = np.linalg.solve(Imat, np.cross(Imat @ w, w) + m * g * np.cross(G, r0))
        return np.concatenate([np.cross(G, w), wdot])
    return field


def fd_jacobian(field, x0, keep=None, h=1e-6) -> np.ndarray:
    """Central-difference Jacobian of ``field`` at ``x0`` in the coordinates ``keep``
    (all by default)."""
    keep = list(range(len(x0))) if keep is None else list(keep)
    J = np.empty((len(keep), len(keep)))
    for col, j in enumerate(keep):
        e = np.zeros(len(x0))
        e[j] = h
        J[:, col] = ((field(x0 + e) - field(x0 - e)) / (2 * h))[keep]
    return J


def same_spectrum(a, b, tol=1e-5) -> bool:
    """Equal multisets of eigenvalues, each matched to its nearest, up to ``tol``
    relative to ``max(1, |z|)``."""
    a, rest = list(np.asarray(a)), list(np.asarray(b))
    if len(a) != len(rest):
        return False
    for z in a:
        k = int(np.argmin([abs(z - w) for w in rest]))
        if abs(z - rest.pop(k)) > tol * max(1.0, abs(z)):
            return False
    return True
