"""A dataset's knobs, checked when its configuration is made.

A Reasoning Gym configuration is a dataclass: ``create_dataset(name, **knobs)`` calls
its constructor with whatever a user, a YAML file or a curriculum wrote.  A dataclass
checks nothing, so ``min_nodes="4"`` used to surface as a ``TypeError`` deep in a
generator, and a misspelt knob as the constructor's bare ``TypeError`` — both at the
worst moment.  Here every knob is checked against the type its field declares, one
rule per type, for every dataset at once:

=========================  ==============================================================
declared                   accepted (anything else: ``InputError`` naming the knob)
=========================  ==============================================================
``int``                    a whole number (not a bool; numpy integers too)
``float``                  a finite number (an int too); NaN and ±Infinity refused
``bool``                   True or False (not 0/1, not "yes")
``X | None``               None, or what ``X`` accepts
``tuple[str, ...]``        one name or a list/tuple of at most ``MAX_CHOICES`` names (kept
                           as a tuple; enum members too); which names are known is the
                           knobs' own ``validate``'s business
=========================  ==============================================================

``configuration`` (a class decorator) makes a config refuse an unknown knob naming the
known ones, and validate itself as it is made.

    >>> from dataclasses import dataclass
    >>> @configuration
    ... @dataclass
    ... class Toy:
    ...     nodes: int = 3
    ...     kinds: tuple[str, ...] = ("a",)
    ...     def validate(self) -> None:
    ...         check_knobs(self)
    >>> Toy(kinds=["a", "b"]).kinds
    ('a', 'b')
    >>> for bad in ({"nodes": "4"}, {"node": 4}):
    ...     try:
    ...         Toy(**bad)
    ...     except InputError as error:
    ...         print(error)
    nodes must be a whole number, not '4' (str)
    unknown knob 'node' for Toy; known: nodes, kinds
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import numbers
import types
import typing
from typing import Any

from causal_oracle.entry import InputError

MAX_CHOICES = 64  # names in one list knob (task types, relations, …)


def _name(value: Any) -> str:
    text = repr(value)
    return (text if len(text) <= 60 else text[:60] + "…") + f" ({type(value).__name__})"


def _whole(value: Any, knob: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise InputError(f"{knob} must be a whole number, not {_name(value)}")


def _real(value: Any, knob: str) -> float:
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and \
            math.isfinite(float(value)):
        return float(value)
    raise InputError(f"{knob} must be a finite number, not {_name(value)}")


def _flag(value: Any, knob: str) -> bool:
    if isinstance(value, bool) or type(value).__name__ == "bool_":  # numpy's bool too
        return bool(value)
    raise InputError(f"{knob} must be True or False, not {_name(value)}")


def _names(value: Any, knob: str) -> tuple[Any, ...]:
    if isinstance(value, str | enum.Enum):
        return (value,)
    if isinstance(value, list | tuple):
        for i, v in enumerate(value[:MAX_CHOICES + 1]):
            if not isinstance(v, str | enum.Enum):
                raise InputError(f"{knob}[{i}] must be a name, not {_name(v)}")
        if len(value) > MAX_CHOICES:
            raise InputError(f"{knob} lists {len(value):,} names; at most {MAX_CHOICES}")
        return tuple(value)
    raise InputError(f"{knob} must be a name or a list of names, not {_name(value)}")


def _typed(value: Any, hint: Any, knob: str) -> Any:
    """``value`` as the type ``hint`` declares (a list of names as a tuple), else
    ``InputError`` naming ``knob``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None and len(options) < len(typing.get_args(hint)):
            return None
        if len(options) == 1:
            try:
                return _typed(value, options[0], knob)
            except InputError as error:
                raise InputError(f"{error.message} (or None)") from None
        return value
    if hint is bool:
        return _flag(value, knob)
    if hint is int:
        return _whole(value, knob)
    if hint is float:
        return _real(value, knob)
    if typing.get_origin(hint) is tuple:
        return _names(value, knob)
    return value


def check_knobs(config: Any) -> None:
    """Check (and normalise) every field of the dataclass ``config`` against its declared
    type: ``InputError`` naming the first knob of the wrong type."""
    hints = typing.get_type_hints(type(config))
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        setattr(config, field.name, _typed(value, hints.get(field.name, Any), field.name))


def configuration(cls: type) -> type:
    """Class decorator for a dataset config (a dataclass): made with an unknown knob, it
    raises ``InputError`` naming the known knobs (not the dataclass's ``TypeError``), and
    every config is validated (types, then ranges) as it is made — so
    ``reasoning_gym.create_dataset`` refuses a bad configuration at creation."""
    made = cls.__init__
    known = tuple(f.name for f in dataclasses.fields(cls))

    @functools.wraps(made)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        unknown = [k for k in kwargs if k not in known]
        if unknown:
            raise InputError(f"unknown knob {unknown[0]!r} for {cls.__name__}; known: "
                             f"{', '.join(known)}")
        if len(args) > len(known):
            raise InputError(f"{cls.__name__} takes at most {len(known)} knobs, "
                             f"got {len(args)} positional values")
        made(self, *args, **kwargs)
        self.validate()

    cls.__init__ = __init__  # type: ignore[misc]
    return cls


__all__ = ["MAX_CHOICES", "check_knobs", "configuration"]
