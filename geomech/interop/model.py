r"""Model files: a nonholonomic system declared in TOML, read without evaluating any code.

The format (every expression is read by the safe parser :meth:`Manifold.parse
<geomech.core.manifold.Manifold.parse>`; the velocity of a coordinate ``x`` is ``xdot``)::

    name = "diff_drive"                       # required
    description = "Differential-drive robot"  # optional
    coordinates = ["x", "y", "phi", "thl", "thr"]                    # required
    lagrangian = "m/2*(xdot**2 + ydot**2) + J/2*phidot**2"           # required
    constraints = ["-xdot*sin(phi) + ydot*cos(phi)"]  # optional, linear in the velocities
    independent = ["thldot", "thrdot"]        # optional: velocities kept independent

    [parameters]      # symbols (positive) with default numeric values for the simulation
    m = 4.0

    [forces]          # optional non-potential generalized forces Q_i, by coordinate
    thl = "tl"

    [initial]         # optional initial state (coordinates, independent velocities)
    x = 0.0

    [frame]           # optional natural quasi-velocities: one field per name, given by
    names = ["v", "omega"]                  # its components on the coordinates
    fields = [["cos(phi)", "sin(phi)", "0"], ["0", "0", "1"]]

Errors name the file, the key and the problem (:class:`ModelFileError`, a ``ValueError``).

Examples
--------
>>> import tempfile, os
>>> text = '''
... name = "sleigh"
... coordinates = ["x", "y", "phi"]
... lagrangian = "m/2*(xdot**2 + ydot**2) + I/2*phidot**2"
... constraints = ["-xdot*sin(phi) + ydot*cos(phi)"]
... [parameters]
... m = 2.0
... I = 0.5
... '''
>>> with tempfile.TemporaryDirectory() as d:
...     path = os.path.join(d, "sleigh.toml")
...     with open(path, "w") as fh:
...         _ = fh.write(text)
...     S = load_model(path)
>>> S.name, S.manifold.parameters
('sleigh', (m, I))
>>> S.numeric_defaults[0]
{m: 2.0, I: 0.5}
"""

from __future__ import annotations

import keyword
import math
import os
import re
import sys
from collections.abc import Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:   # pragma: no cover - Python 3.10
    import tomli as tomllib

from ..core.manifold import Manifold
from ..core.parse import FUNCTIONS

__all__ = ["load_model", "parse_model", "ModelFileError", "MODEL_KEYS"]

#: Top-level keys of a model file (``name``, ``coordinates`` and ``lagrangian`` required).
MODEL_KEYS = ("name", "description", "coordinates", "lagrangian", "constraints",
              "independent", "parameters", "forces", "initial", "frame")
_REQUIRED = ("name", "coordinates", "lagrangian")
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class ModelFileError(ValueError):
    """A model file that cannot be read: the message names the file, the key and the
    problem."""

    def __init__(self, source: str, key: str | None, problem: str):
        self.source, self.key, self.problem = source, key, problem
        where = f"{source}: key '{key}'" if key else source
        super().__init__(f"{where}: {problem}")


def load_model(path):
    """Read a model file (TOML, format in :mod:`geomech.interop.model`) into a system.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.toml`` file.

    Returns
    -------
    NonholonomicSystem
        With ``name`` and ``description`` from the file and ``numeric_defaults`` =
        ``(parameter values, initial state)`` (dictionaries keyed by symbols) used by the
        report's simulation; ``natural_frame`` when the file has a ``[frame]``.

    Raises
    ------
    ModelFileError
        (a ``ValueError``) for a missing file, invalid TOML, a missing or unknown key, an
        unknown name or unsafe text in an expression, a constraint that is not linear in
        the velocities, ...; the message names the file and the key.
    TypeError
        If ``path`` is not a path.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"load_model expects a path to a .toml file, got {type(path).__name__}")
    source = os.fspath(path)
    try:
        with open(source, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ModelFileError(source, None, f"cannot read the file ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ModelFileError(source, None, f"not valid TOML: {exc}") from None
    return parse_model(data, source)


def _need(source: str, key: str, value, kind: type, what: str):
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ModelFileError(source, key, f"expected {what}, got {type(value).__name__} "
                                          f"{value!r}")
    return value


def _check_name(source: str, key: str, name) -> str:
    _need(source, key, name, str, "a name (a string)")
    if not _IDENT.match(name) or keyword.iskeyword(name):
        raise ModelFileError(source, key, f"{name!r} is not a valid name (letters, digits and "
                                          "'_', starting with a letter)")
    if name in FUNCTIONS:
        raise ModelFileError(source, key, f"{name!r} is the name of a function "
                                          "of the parser; choose another name")
    return name


def _number(source: str, key: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ModelFileError(source, key, f"expected a number, got {value!r}")
    if not math.isfinite(value):
        raise ModelFileError(source, key, f"expected a finite number, got {value!r}")
    return float(value)


def _header(data: Mapping, source: str) -> tuple[str, str, list[str], dict[str, float]]:
    unknown = sorted(set(data) - set(MODEL_KEYS))
    if unknown:
        raise ModelFileError(source, unknown[0], f"unknown key; known keys: "
                                                 f"{', '.join(MODEL_KEYS)}")
    for key in _REQUIRED:
        if key not in data:
            raise ModelFileError(source, key, "missing (required: "
                                              f"{', '.join(_REQUIRED)})")
    name = _need(source, "name", data["name"], str, "a string")
    if not name.strip():
        raise ModelFileError(source, "name", "empty")
    desc = _need(source, "description", data.get("description", ""), str, "a string")
    coords = _need(source, "coordinates", data["coordinates"], list, "a list of names")
    if not coords:
        raise ModelFileError(source, "coordinates", "a system needs at least one coordinate")
    coords = [_check_name(source, f"coordinates[{i}]", c) for i, c in enumerate(coords, 1)]
    params = _need(source, "parameters", data.get("parameters", {}), dict, "a table")
    values = {}
    for p, v in params.items():
        _check_name(source, f"parameters.{p}", p)
        values[p] = _number(source, f"parameters.{p}", v)
        if values[p] <= 0:
            raise ModelFileError(source, f"parameters.{p}", f"must be positive (parameters "
                                 f"are positive symbols), got {v}; write a sign into the "
                                 "expressions instead, e.g. a force \"-tr\"")
    names = coords + [f"{c}dot" for c in coords] + list(values)
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ModelFileError(source, "coordinates", f"the name {dup[0]!r} is used twice "
                                                    "(coordinates, their velocities "
                                                    "'<name>dot' and parameters must differ)")
    return name, desc, coords, values


def _expr(N: Manifold, source: str, key: str, text):
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return N.sympify(_number(source, key, text))
    _need(source, key, text, str, "an expression (a string)")
    try:
        return N.parse(text)
    except ValueError as exc:
        raise ModelFileError(source, key, str(exc)) from None


def _forces(N: Manifold, source: str, data: Mapping):
    if "forces" not in data:
        return None
    table = _need(source, "forces", data["forces"], dict, "a table {coordinate: force}")
    known = [c.name for c in N.coords]
    out = {}
    for c, text in table.items():
        if c not in known:
            raise ModelFileError(source, f"forces.{c}", f"unknown coordinate {c!r}; the "
                                                        f"coordinates are {', '.join(known)}")
        out[N.coords[known.index(c)]] = _expr(N, source, f"forces.{c}", text)
    return out


def _frame(N: Manifold, source: str, data: Mapping) -> dict | None:
    if "frame" not in data:
        return None
    table = _need(source, "frame", data["frame"], dict, "a table with 'names' and 'fields'")
    extra = sorted(set(table) - {"names", "fields"})
    if extra or "names" not in table or "fields" not in table:
        raise ModelFileError(source, "frame", "needs exactly the keys 'names' and 'fields'")
    names = [_check_name(source, f"frame.names[{i}]", n)
             for i, n in enumerate(_need(source, "frame.names", table["names"], list,
                                         "a list of names"), 1)]
    rows = _need(source, "frame.fields", table["fields"], list, "a list of fields")
    if len(rows) != len(names):
        raise ModelFileError(source, "frame.fields", f"{len(rows)} fields for {len(names)} "
                                                     "names")
    fields = []
    for i, row in enumerate(rows, 1):
        key = f"frame.fields[{i}]"
        if not isinstance(row, list) or len(row) != N.dim:
            raise ModelFileError(source, key, f"expected a list of {N.dim} components (one "
                                              "per coordinate)")
        comps = [_expr(N, source, f"{key}[{j}]", t) for j, t in enumerate(row, 1)]
        if any(v in e.free_symbols for e in comps for v in N.velocities):
            raise ModelFileError(source, key, "frame components depend on the coordinates "
                                              "only, not on the velocities")
        fields.append(N.vector_field(comps))
    return {"frame": tuple(fields), "names": tuple(names)}


def _check_frame(S, frame: dict, source: str) -> None:
    """The frame spans the constraint distribution: ``n - k`` fields, each annihilated by
    the constraints (their homogeneous parts)."""
    from ..core.zero import default_policy

    pol, A = default_policy(), S.constraint_matrix
    need = S.manifold.dim - A.shape[0]
    if len(frame["frame"]) != need:
        raise ModelFileError(source, "frame.fields", f"{len(frame['frame'])} fields given; the "
                             f"constraints leave {need} independent velocities")
    for i, X in enumerate(frame["frame"], 1):
        for j in range(A.shape[0]):
            value = sum(A[j, c] * X.components[c] for c in range(S.manifold.dim))
            if not pol.is_zero(value):
                raise ModelFileError(source, f"frame.fields[{i}]", f"the field does not "
                                     f"satisfy constraint {j + 1} (its value is "
                                     f"{value}, not 0)")


def _key_of(message: str) -> str | None:
    low = message.lower()
    for word, key in (("constraint", "constraints"), ("lagrangian", "lagrangian"),
                      ("force", "forces"), ("independent", "independent")):
        if word in low:
            return key
    return None


def _initial(S, source: str, data: Mapping) -> dict:
    table = _need(source, "initial", data.get("initial", {}), dict, "a table {name: value}")
    P = S.phase_space
    by_name = {c.name: c for c in P.coords}
    dependent = {v.name for v in S.dependent_solution}
    x0 = {c: round(0.15 * (k + 1), 2) for k, c in enumerate(P.coords)}
    for k, v in table.items():
        if k in dependent:
            raise ModelFileError(source, f"initial.{k}", f"{k} is a dependent velocity (fixed "
                                 "by the constraints); give the state on "
                                 f"({', '.join(by_name)})")
        if k not in by_name:
            raise ModelFileError(source, f"initial.{k}", f"unknown name {k!r}; the state is "
                                                         f"({', '.join(by_name)})")
        x0[by_name[k]] = _number(source, f"initial.{k}", v)
    return x0


def parse_model(data: Mapping, source: str = "<model>"):
    """Build the system of an already-read model file (``data``: the TOML table).

    See :func:`load_model`; ``source`` names the file in error messages.
    """
    from geomech.mechanics.system import NonholonomicSystem

    if not isinstance(data, Mapping):
        raise TypeError(f"a model is a table (mapping), got {type(data).__name__}")
    name, desc, coords, values = _header(data, source)
    N = Manifold(name, coords, parameters=list(values))
    lag = _expr(N, source, "lagrangian", data["lagrangian"])
    cons = _need(source, "constraints", data.get("constraints", []), list,
                 "a list of expressions")
    cons = [_expr(N, source, f"constraints[{i}]", c) for i, c in enumerate(cons, 1)]
    indep = data.get("independent")
    if indep is not None:
        indep = [_check_name(source, f"independent[{i}]", v)
                 for i, v in enumerate(_need(source, "independent", indep, list,
                                             "a list of velocity names"), 1)]
    forces = _forces(N, source, data)
    try:
        S = NonholonomicSystem(N, lag, cons, forces=forces, independent=indep, name=name,
                               description=desc)
    except ValueError as exc:
        raise ModelFileError(source, _key_of(str(exc)), str(exc)) from None
    params = {p: values[p.name] for p in N.parameters}
    defaults = (params, _initial(S, source, data))
    frame = _frame(N, source, data)
    if frame is not None:
        _check_frame(S, frame, source)
    # a system is immutable: the checked metadata go to the constructor of the final value
    return NonholonomicSystem(N, S.lagrangian, S.constraints, forces=S.forces,
                              independent=S.independent_velocities, name=name,
                              description=desc, natural_frame=frame,
                              numeric_defaults=defaults, source=source)
