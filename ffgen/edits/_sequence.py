"""Insert into and remove from bracketed sequences (dict, list, tuple, parenthesised import).

The whitespace between two elements (the "gap") carries the newline, the indentation, a trailing
comment of the element before it and any comment lines above the element after it. Inserting
after element ``j`` splits that gap: the trailing comment stays with ``j``, the comment lines stay
above whatever followed ``j``. Removal merges the two gaps back, so remove undoes insert exactly.

libcst keeps the gap after the LAST element either in its comma (import lists) or in the closing
bracket (dicts, lists), so both places are handled.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import libcst as cst

Whitespace = cst.BaseParenthesizableWhitespace
Comma = cst.Comma | cst.MaybeSentinel
INDENT = "    "  # black's indentation, for an entry with no sibling to copy it from


@dataclasses.dataclass(frozen=True, slots=True)
class Seq:
    """A bracketed sequence taken apart: the elements and the whitespace inside the brackets."""

    node: cst.CSTNode
    elements: tuple[Any, ...]
    open_ws: Whitespace | None
    close_ws: Whitespace | None


def unpack(node: cst.CSTNode) -> Seq:
    if isinstance(node, cst.Dict):
        open_ws, close_ws = node.lbrace.whitespace_after, node.rbrace.whitespace_before
        return Seq(node, tuple(node.elements), open_ws, close_ws)
    if isinstance(node, cst.List):
        open_ws, close_ws = node.lbracket.whitespace_after, node.rbracket.whitespace_before
        return Seq(node, tuple(node.elements), open_ws, close_ws)
    if isinstance(node, cst.Tuple):
        opened = node.lpar[0].whitespace_after if node.lpar else None
        closed = node.rpar[-1].whitespace_before if node.rpar else None
        return Seq(node, tuple(node.elements), opened, closed)
    if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
        opened = node.lpar.whitespace_after if node.lpar else None
        closed = node.rpar.whitespace_before if node.rpar else None
        return Seq(node, tuple(node.names), opened, closed)
    raise TypeError(f"not a bracketed sequence: {type(node).__name__}")


def repack(
    seq: Seq, elements: list[Any], close_ws: Whitespace | None, open_ws: Whitespace | None = None
) -> cst.CSTNode:
    node = seq.node
    if open_ws is not None:
        node = _reopen(node, open_ws)
    if isinstance(node, cst.Dict):
        rbrace = node.rbrace.with_changes(whitespace_before=close_ws)
        return node.with_changes(elements=elements, rbrace=rbrace)
    if isinstance(node, cst.List):
        rbracket = node.rbracket.with_changes(whitespace_before=close_ws)
        return node.with_changes(elements=elements, rbracket=rbracket)
    if isinstance(node, cst.Tuple):
        return _repack_tuple(node, elements, close_ws)
    assert isinstance(node, cst.ImportFrom)
    rpar = node.rpar.with_changes(whitespace_before=close_ws) if node.rpar else None
    return node.with_changes(names=elements, rpar=rpar)


def _reopen(node: cst.CSTNode, open_ws: Whitespace) -> cst.CSTNode:
    """``node`` with ``open_ws`` after its opening bracket (only dicts, lists and tuples can be
    empty, so only they need it)."""
    if isinstance(node, cst.Dict):
        return node.with_changes(lbrace=node.lbrace.with_changes(whitespace_after=open_ws))
    if isinstance(node, cst.List):
        return node.with_changes(lbracket=node.lbracket.with_changes(whitespace_after=open_ws))
    assert isinstance(node, cst.Tuple) and node.lpar
    lpar = [node.lpar[0].with_changes(whitespace_after=open_ws), *node.lpar[1:]]
    return node.with_changes(lpar=lpar)


def _repack_tuple(node: cst.Tuple, elements: list[Any], close_ws: Whitespace | None) -> cst.Tuple:
    if len(elements) == 1 and isinstance(elements[0].comma, cst.MaybeSentinel):
        # ("a") is a string, not a tuple: a single element keeps its comma.
        elements = [elements[0].with_changes(comma=cst.Comma())]
    rpar = list(node.rpar)
    if rpar:
        rpar[-1] = rpar[-1].with_changes(whitespace_before=close_ws)
    return node.with_changes(elements=elements, rpar=rpar)


def insert(node: cst.CSTNode, index: int, new: Any) -> cst.CSTNode:
    """Return ``node`` with ``new`` (an element without comma) placed at ``index``."""
    seq = unpack(node)
    elements = list(seq.elements)
    if not elements:
        return _insert_into_empty(seq, new)
    if index == 0:
        comma = cst.Comma(whitespace_after=_separator(seq))
        return repack(seq, [new.with_changes(comma=comma), *elements], seq.close_ws)
    return _insert_after(seq, elements, index - 1, new)


def _insert_into_empty(seq: Seq, new: Any) -> cst.CSTNode:
    """``{}`` becomes ``{new}``; a multi-line empty ``{\n}`` (maybe holding comment lines) gets the
    entry on its own line, four spaces in, with black's trailing comma, before the closing bracket
    on its own line. :func:`remove` of that last entry gives the empty layout back."""
    opened = seq.open_ws
    if not isinstance(opened, cst.ParenthesizedWhitespace):
        return repack(seq, [new], seq.close_ws)
    inner = opened.with_changes(last_line=cst.SimpleWhitespace(opened.last_line.value + INDENT))
    closing = cst.ParenthesizedWhitespace(indent=opened.indent, last_line=opened.last_line)
    return repack(seq, [new.with_changes(comma=cst.Comma())], closing, inner)


def _emptied(seq: Seq) -> cst.CSTNode:
    """The inverse of :func:`_insert_into_empty`: the lines above the closing bracket join those
    after the opening one, and the bracket's own indentation comes back."""
    opened, closing = seq.open_ws, seq.close_ws
    if not isinstance(opened, cst.ParenthesizedWhitespace) or not isinstance(
        closing, cst.ParenthesizedWhitespace
    ):
        return repack(seq, [], closing)
    merged = opened.with_changes(
        empty_lines=[*opened.empty_lines, *closing.empty_lines], last_line=closing.last_line
    )
    return repack(seq, [], cst.SimpleWhitespace(""), merged)


def _insert_after(seq: Seq, elements: list[Any], j: int, new: Any) -> cst.CSTNode:
    prev = elements[j]
    close_ws = seq.close_ws
    if _gap_in_comma(elements, j):
        left, right = _split(prev.comma.whitespace_after, _separator(seq))
        elements[j] = prev.with_changes(comma=prev.comma.with_changes(whitespace_after=left))
        elements.insert(j + 1, new.with_changes(comma=cst.Comma(whitespace_after=right)))
        return repack(seq, elements, close_ws)
    # The last element, with the gap before the closing bracket.
    old_comma = prev.comma
    if close_ws is None:
        left = _separator(seq)
    else:
        left, close_ws = _split(close_ws, _separator(seq))
    comma = cst.Comma(whitespace_after=left)
    if isinstance(old_comma, cst.Comma):
        comma = comma.with_changes(whitespace_before=old_comma.whitespace_before)
    elements[j] = prev.with_changes(comma=comma)
    elements.insert(j + 1, new.with_changes(comma=old_comma))
    return repack(seq, elements, close_ws)


def remove(node: cst.CSTNode, index: int) -> cst.CSTNode:
    """Return ``node`` without the element at ``index`` (the inverse of :func:`insert`)."""
    seq = unpack(node)
    elements = list(seq.elements)
    gone = elements.pop(index)
    if not elements:
        return _emptied(seq)
    if index == 0:
        return repack(seq, elements, seq.close_ws)
    prev = elements[index - 1]
    if _gap_in_comma(list(seq.elements), index):
        merged = _merge(prev.comma.whitespace_after, gone.comma.whitespace_after)
        elements[index - 1] = prev.with_changes(
            comma=prev.comma.with_changes(whitespace_after=merged)
        )
        return repack(seq, elements, seq.close_ws)
    close_ws = seq.close_ws
    if isinstance(prev.comma, cst.Comma) and close_ws is not None:
        close_ws = _merge(prev.comma.whitespace_after, close_ws)
    elements[index - 1] = prev.with_changes(comma=gone.comma)
    return repack(seq, elements, close_ws)


def _gap_in_comma(elements: list[Any], j: int) -> bool:
    comma = elements[j].comma
    if not isinstance(comma, cst.Comma):
        return False
    is_last = j == len(elements) - 1
    return not is_last or isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)


def _separator(seq: Seq) -> Whitespace:
    """The whitespace between two elements, without any comment: copied from the layout in use."""
    if len(seq.elements) >= 2 and isinstance(seq.elements[0].comma, cst.Comma):
        sample = seq.elements[0].comma.whitespace_after
    else:
        sample = seq.open_ws
    if isinstance(sample, cst.ParenthesizedWhitespace):
        return sample.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
    return cst.SimpleWhitespace(" ")


def _split(gap: Whitespace, separator: Whitespace) -> tuple[Whitespace, Whitespace]:
    if not isinstance(gap, cst.ParenthesizedWhitespace):
        return separator, gap
    if isinstance(separator, cst.ParenthesizedWhitespace):
        left = gap.with_changes(
            empty_lines=(), indent=separator.indent, last_line=separator.last_line
        )
    else:
        left = separator
    right = gap.with_changes(first_line=cst.TrailingWhitespace())
    return left, right


def _merge(left: Whitespace, right: Whitespace) -> Whitespace:
    if isinstance(left, cst.ParenthesizedWhitespace) and isinstance(
        right, cst.ParenthesizedWhitespace
    ):
        return right.with_changes(
            first_line=left.first_line, empty_lines=[*left.empty_lines, *right.empty_lines]
        )
    return right
