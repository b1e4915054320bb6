"""Typed value classes that cost next to nothing to define: the referee's stand-in for dataclasses.

``dataclasses`` (with the ``inspect`` module it loads) and the code it compiles for each class cost
more at start-up than a whole ``uw-referee status`` otherwise does; a referee command runs for a
few milliseconds, so that cost is most of it. ``value`` gives a class what the referee uses of
dataclasses (an ``__init__`` from the annotated fields with their defaults, ``field(default_factory=)``,
``__post_init__``, equality, a readable ``repr``, ``frozen`` with a hash) by shared functions, with no
code compiled per class. Type checkers see it as a dataclass (PEP 681 ``dataclass_transform``).
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs more to import than this module saves: only for the checkers
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen value."""


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


_MISSING = object()


def field(*, default_factory: Callable[[], Any]) -> Any:
    """A field whose default is made anew for each instance (``field(default_factory=list)``)."""
    return _Factory(default_factory)


def fields_of(obj: Any) -> tuple[str, ...]:
    """The names of the fields of a value class or instance, in order."""
    fields: tuple[str, ...] = obj._value_fields  # set by @value on every value class
    return fields


def as_dict(obj: Any) -> dict[str, Any]:
    """The fields and their values (lists copied, nested values left as they are)."""
    return {name: (list(v) if isinstance(v, list) else v)
            for name in obj._value_fields for v in (getattr(obj, name),)}


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    names = cls._value_fields
    # Every field given, all by name or all in order (a stored event read back, most engine values):
    # straight into the instance's dict, a tenth of the general path's cost.
    if len(names) == len(args) + len(kwargs) and (kwargs.keys() == cls._value_names if not args else not kwargs):
        self.__dict__.update(kwargs if not args else zip(names, args))
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()
        return
    if len(args) > len(names):
        raise TypeError(f"{cls.__name__}() takes {len(names)} arguments, {len(args)} given")
    values = dict(zip(names, args))
    for name, given in kwargs.items():
        if name not in names or name in values:
            raise TypeError(f"{cls.__name__}() got an unexpected or repeated argument {name!r}")
        values[name] = given
    set_ = object.__setattr__
    defaults = cls._value_defaults
    for name in names:
        if name in values:
            set_(self, name, values[name])
            continue
        default = defaults.get(name, _MISSING)
        if default is _MISSING:
            raise TypeError(f"{cls.__name__}() missing the argument {name!r}")
        set_(self, name, default.make() if isinstance(default, _Factory) else default)
    post = getattr(self, "__post_init__", None)
    if post is not None:
        post()


def _astuple(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in self._value_fields)


def _eq(self: Any, other: object) -> bool:
    if type(other) is not type(self):
        return NotImplemented  # type: ignore[no-any-return]  # Python then asks the other operand, as dataclasses do
    same: bool = _astuple(self) == _astuple(other)
    return same


def _hash(self: Any) -> int:
    return hash((type(self).__name__, _astuple(self)))


def _repr(self: Any) -> str:
    return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._value_fields)})"


def _frozen_setattr(self: Any, name: str, _value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def _value(frozen: bool) -> Callable[[type[T]], type[T]]:
    def wrap(cls: type[T]) -> type[T]:
        # The base value classes' fields first, as dataclasses do, then this class's own.
        names: list[str] = list(getattr(cls, "_value_fields", ()))
        defaults: dict[str, Any] = dict(getattr(cls, "_value_defaults", {}))
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            if name not in names:
                names.append(name)
            if name in cls.__dict__:
                defaults[name] = cls.__dict__[name]
            else:
                defaults.pop(name, None)
        attrs: dict[str, Any] = {
            "_value_fields": tuple(names), "_value_names": frozenset(names), "_value_defaults": defaults,
            "__init__": _init, "__repr__": _repr, "__eq__": _eq,
            "__match_args__": tuple(names),
        }
        if frozen:
            attrs.update(__setattr__=_frozen_setattr, __delattr__=_frozen_delattr, __hash__=_hash)
        else:
            attrs["__hash__"] = None  # mutable and compared by value: not hashable, as with dataclasses
        for name, attr in attrs.items():
            type.__setattr__(cls, name, attr)
        for name, default in defaults.items():
            if isinstance(default, _Factory) and name in cls.__dict__:
                type.__delattr__(cls, name)  # a factory is not a default value: instances always get their own
        return cls

    return wrap


if TYPE_CHECKING:
    @dataclass_transform(field_specifiers=(field,))
    def value(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...
else:
    def value(*, frozen: bool = False):
        """Class decorator: a value class with the annotated fields (``frozen``: immutable and hashable)."""
        return _value(frozen)


__all__ = ["value", "field", "fields_of", "as_dict", "FrozenInstanceError"]
