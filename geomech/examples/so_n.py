r"""Catalogue: the n-dimensional rigid body (Euler–Arnold equations on :math:`\mathfrak{so}(n)`)
and Shamolin's fixed n-dimensional pendulum in a flow (Shamolin (2017), Sections 3–5).

Their constructors are those of their models,
:func:`geomech.mechanics.models.rigid_body_so_n.rigid_body_so_n` and
:func:`geomech.mechanics.models.shamolin.shamolin_pendulum`; this module enters them in the
catalogue.

>>> import geomech as gm
>>> gm.examples.get("rigid_body_so_n", n=5, inertia="1-4").basis.dim
10
>>> gm.examples.get("shamolin_pendulum", n=5).n
5
"""

from geomech.mechanics.models.rigid_body_so_n import rigid_body_so_n
from geomech.mechanics.models.shamolin import shamolin_pendulum

from ._registry import register

register(rigid_body_so_n)
register(shamolin_pendulum)
