"""Registry of catalogue systems (name -> constructor)."""

from collections.abc import Callable

REGISTRY: dict[str, Callable] = {}


def register(func: Callable) -> Callable:
    """Decorator adding a constructor to the catalogue under its function name."""
    if func.__name__ in REGISTRY:
        raise ValueError(f"catalogue entry {func.__name__!r} registered twice")
    REGISTRY[func.__name__] = func
    return func


def get(name: str, **params):
    """Build the catalogue system ``name`` (``ValueError`` listing the names if unknown)."""
    try:
        ctor = REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown system {name!r}; known: {', '.join(sorted(REGISTRY))}") \
            from None
    return ctor(**params)
