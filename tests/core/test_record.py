"""``ffgen.record``: the records verify reads a checkout with behave as the frozen dataclasses
they replace (fields, defaults, per-instance defaults, value or identity equality, frozen)."""

from __future__ import annotations

import pytest

from ffgen.record import factory, fields_of, record, replace


@record
class Point:
    """A documented record."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = ()


@record(eq=False)
class Node:
    name: str
    children: dict[str, int] = factory(dict)
    seen: list[int] = factory(list)

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", self.name.upper())


@record
class Point3(Point):
    z: int = 5


def test_fields_defaults_and_keywords():
    assert fields_of(Point) == ("x", "y", "tags")
    assert Point(1) == Point(x=1, y=0, tags=())
    assert (Point(1, 2).x, Point(1, 2).y) == (1, 2)
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Point(1, 2, (), 4)


def test_value_equality_and_hash():
    assert Point(1, 2) == Point(1, 2) and hash(Point(1, 2)) == hash(Point(1, 2))
    assert Point(1, 2) != Point(2, 1)
    assert Point(1) != Point3(1)  # another class is never equal
    assert len({Point(1), Point(1), Point(2)}) == 2


def test_identity_equality_and_defaults_made_per_instance():
    a, b = Node("a"), Node("a")
    assert a != b and a == a and len({a, b}) == 2
    assert a.children == {} and a.children is not b.children and a.seen is not b.seen
    assert a.label == "A"  # __post_init__ ran


def test_frozen():
    p = Point(1)
    with pytest.raises(AttributeError, match="frozen"):
        p.x = 2
    with pytest.raises(AttributeError, match="frozen"):
        del p.y
    assert p.x == 1


def test_inheritance_keeps_the_base_fields_first():
    assert fields_of(Point3) == ("x", "y", "tags", "z")
    assert Point3(1, 2, (), 3).z == 3 and Point3(1).z == 5


def test_replace_and_repr():
    p = replace(Point(1, 2), y=7)
    assert p == Point(1, 7)
    with pytest.raises(TypeError, match="no field"):
        replace(p, w=1)
    assert repr(Point(1, 2, ("a",))) == "Point(x=1, y=2, tags=('a',))"
    assert Point.__doc__ == "A documented record."


def test_methods_are_compiled_on_the_class_s_first_use():
    @record
    class Late:
        first: int
        second: str = "b"

    assert "first" not in Late.__init__.__code__.co_varnames  # still the stand-in
    assert Late(1) == Late(first=1, second="b")
    assert repr(Late(2)).endswith("Late(first=2, second='b')")
    assert Late.__init__.__code__.co_varnames[:3] == ("self", "first", "second")
    assert hash(Late(1)) == hash(Late(1))


def test_internal_fields_are_carried_but_not_compared_or_shown():
    @record(internal=("node",))
    class Param:
        name: str
        node: object = None

    a, b = Param("x", node=object()), Param("x", node=object())
    assert a == b and hash(a) == hash(b) and a.node is not b.node
    assert repr(a).endswith("Param(name='x')")
    assert replace(a, name="y").node is a.node  # still a field: copied along
    with pytest.raises(TypeError, match="no field"):
        record(internal=("missing",))(type("Bad", (), {"__annotations__": {"name": "str"}}))


def test_replace_serves_dataclasses_too():
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Plain:
        x: int
        y: int = 0

    assert replace(Plain(1), y=2) == Plain(1, 2)
