"""Models with their own phase spaces: the free n-dimensional rigid body on so(n) and
Shamolin's multidimensional pendulum."""
