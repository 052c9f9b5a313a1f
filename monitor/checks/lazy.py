"""``lazy``: a property computed on first read and then stored on the instance.

``functools.cached_property`` does the same but, on Python 3.11, takes a lock on every first
read (removed in 3.12); the trace view reads a dozen of them per trace on the hot path. A
view belongs to one thread, so the lock buys nothing here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class lazy(Generic[T]):
    """A non-data descriptor: the first read stores the value in the instance ``__dict__``,
    which then shadows the descriptor, so later reads are plain attribute reads."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> lazy[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> T | lazy[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value
