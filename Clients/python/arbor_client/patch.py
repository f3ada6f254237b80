"""JSON Pointers (RFC 6901) and JSON Patches (RFC 6902), with the standard library only.

``apply_patch`` returns a new document and leaves the one given untouched: it copies
only the containers on the paths it changes and shares the rest with the input. That
keeps a watch's updates cheap and independent, provided nobody changes a value in
place (copy it first: ``copy.deepcopy(update.value)``)::

    from arbor_client import apply_patch
    before = {"counters": [{"count": 1}]}
    after = apply_patch(before, [{"op": "replace", "path": "/counters/0/count", "value": 2}])
    assert before["counters"][0]["count"] == 1 and after["counters"][0]["count"] == 2

A failing operation stops the patch and raises ``PatchError`` naming its index, its op
and the reason, as Arbor's ``JSONPatch`` does:
``operation 1 ('remove') failed: nothing at '/missing'``.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Dict, Iterable, List, Mapping

_INDEX = re.compile(r"0|[1-9][0-9]*")


class PatchError(ValueError):
    """A patch (or a pointer) that does not apply to the document it was given."""


def parse_pointer(pointer: str) -> List[str]:
    """The tokens of a JSON Pointer: ``'/a~1b/0'`` gives ``['a/b', '0']``.

    ``~1`` is undone before ``~0`` (RFC 6901), and a ``~`` followed by anything else is
    refused::

        assert parse_pointer("") == []
        assert parse_pointer("/m~0n/a~1b") == ["m~n", "a/b"]
    """
    if not isinstance(pointer, str):
        raise PatchError(f"{pointer!r} is not a JSON Pointer: a pointer is a string")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"'{pointer}' is not a JSON Pointer: a pointer must be empty or start with '/'")
    tokens = pointer[1:].split("/")
    for token in tokens:
        at = token.find("~")
        while at != -1:
            if at + 1 >= len(token) or token[at + 1] not in "01":
                raise PatchError(f"'{pointer}' is not a JSON Pointer: '~' must be followed by '0' or '1'")
            at = token.find("~", at + 2)
    return [token.replace("~1", "/").replace("~0", "~") for token in tokens]


def format_pointer(tokens: Iterable[Any]) -> str:
    """The JSON Pointer of a list of tokens: ``['a/b', 0]`` gives ``'/a~1b/0'``.

    Example::

        assert format_pointer(["counters", 0, "counter"]) == "/counters/0/counter"
    """
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in tokens)


def _is_container(value: Any) -> bool:
    return isinstance(value, (dict, list))


def _index(array: list, token: str, pointer: str, past_end: bool = False) -> int:
    """An array index: digits without leading zeros; ``-`` (past the end) where adding."""
    if token == "-" and past_end:
        return len(array)
    if not _INDEX.fullmatch(token):
        raise PatchError(f"'{token}' at '{pointer}' is not an array index")
    index = int(token)
    limit = len(array) if past_end else len(array) - 1
    if index > limit:
        raise PatchError(f"nothing at '{pointer}'" if not past_end else f"index {index} at '{pointer}' is past the end of the array")
    return index


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


def resolve(document: Any, pointer: str) -> Any:
    """The value at a JSON Pointer; ``PatchError`` when nothing is there.

    Example::

        assert resolve({"a": [10, 20]}, "/a/1") == 20
    """
    value = document
    walked = ""
    for token in parse_pointer(pointer):
        parent = walked
        walked += "/" + token.replace("~", "~0").replace("/", "~1")
        if isinstance(value, dict):
            if token not in value:
                raise PatchError(f"nothing at '{walked}'")
            value = value[token]
        elif isinstance(value, list):
            value = value[_index(value, token, walked)]
        else:
            raise PatchError(f"'{parent}' is {_type_name(value)}, which has no members")
    return value


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: ``1 == 1.0``, but ``true`` is not ``1`` and a string is
    never a number (what the patch's ``test`` compares with).

    Example::

        assert json_equal({"a": [1]}, {"a": [1.0]}) and not json_equal(True, 1)
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    return type(a) is type(b) and a == b


class _Patcher:
    """Applies operations to a document, copying each container on a changed path once
    (those it copied are then changed in place) so that the input stays as it was."""

    def __init__(self, document: Any):
        self.document = document
        # The copies made so far, by id (held, so that no other object takes an id).
        self.fresh: Dict[int, Any] = {}

    def _own(self, container: Any) -> Any:
        """A copy of `container` this patch may change (itself when it made it)."""
        if id(container) in self.fresh:
            return container
        mine = container.copy()
        self.fresh[id(mine)] = mine
        return mine

    def _parent(self, tokens: List[str], pointer: str) -> Any:
        """The container holding the last token, made writable along the way."""
        if not _is_container(self.document):
            raise PatchError(f"'' is {_type_name(self.document)}, which has no members")
        self.document = self._own(self.document)
        parent = self.document
        walked = ""
        for token in tokens[:-1]:
            walked += "/" + token.replace("~", "~0").replace("/", "~1")
            if isinstance(parent, dict):
                if token not in parent:
                    raise PatchError(f"nothing at '{walked}'")
                key: Any = token
            elif isinstance(parent, list):
                key = _index(parent, token, walked)
            else:
                raise PatchError(f"'{walked}' is {_type_name(parent)}, which has no members")
            child = parent[key]
            if not _is_container(child):
                raise PatchError(f"'{walked}' is {_type_name(child)}, which has no members")
            child = self._own(child)
            parent[key] = child
            parent = child
        return parent

    def add(self, pointer: str, value: Any) -> None:
        tokens = parse_pointer(pointer)
        if not tokens:
            self.document = value
            return
        parent = self._parent(tokens, pointer)
        token = tokens[-1]
        if isinstance(parent, dict):
            parent[token] = value
        elif isinstance(parent, list):
            parent.insert(_index(parent, token, pointer, past_end=True), value)
        else:
            raise PatchError(f"'{pointer}' is inside {_type_name(parent)}, which has no members")

    def remove(self, pointer: str) -> Any:
        tokens = parse_pointer(pointer)
        if not tokens:
            raise PatchError("the whole document cannot be removed")
        resolve(self.document, pointer)
        parent = self._parent(tokens, pointer)
        if isinstance(parent, dict):
            return parent.pop(tokens[-1])
        return parent.pop(_index(parent, tokens[-1], pointer))

    def replace(self, pointer: str, value: Any) -> None:
        tokens = parse_pointer(pointer)
        resolve(self.document, pointer)
        if not tokens:
            self.document = value
            return
        parent = self._parent(tokens, pointer)
        if isinstance(parent, dict):
            parent[tokens[-1]] = value
        else:
            parent[_index(parent, tokens[-1], pointer)] = value

    def apply(self, index: int, operation: Any) -> None:
        if not isinstance(operation, Mapping):
            raise PatchError(f"operation {index} is not an object: {operation!r}")
        op = operation.get("op")
        try:
            path = operation["path"]
            if op == "add":
                self.add(path, _required(operation, "value"))
            elif op == "remove":
                self.remove(path)
            elif op == "replace":
                self.replace(path, _required(operation, "value"))
            elif op == "move":
                source = _required(operation, "from")
                value = resolve(self.document, source)
                if source == path:
                    return
                if path.startswith(source + "/"):
                    raise PatchError(f"'{source}' cannot be moved into itself ('{path}')")
                self.remove(source)
                self.add(path, value)
            elif op == "copy":
                self.add(path, copy.deepcopy(resolve(self.document, _required(operation, "from"))))
            elif op == "test":
                expected = _required(operation, "value")
                if not json_equal(resolve(self.document, path), expected):
                    raise PatchError(f"the value at '{path}' is not {expected!r}")
            else:
                raise PatchError(f"unknown op {op!r}")
        except KeyError as missing:
            raise PatchError(f"operation {index} ({op!r}) has no {missing.args[0]}") from None
        except PatchError as error:
            raise PatchError(f"operation {index} ('{op}') failed: {error}") from None


def _required(operation: Mapping, member: str) -> Any:
    if member not in operation:
        raise KeyError(f"'{member}'")
    return operation[member]


def apply_patch(document: Any, patch: Iterable[Any]) -> Any:
    """The document after an RFC 6902 patch (``add``, ``remove``, ``replace``, ``move``,
    ``copy``, ``test``), all or nothing: the input is never changed, and a failing
    operation raises ``PatchError`` with nothing applied.

    Example::

        doc = apply_patch({"items": []}, [{"op": "add", "path": "/items/-", "value": "milk"}])
        assert doc == {"items": ["milk"]}
    """
    if isinstance(patch, (str, bytes, Mapping)):
        raise PatchError("a patch is a list of operations")
    patcher = _Patcher(document)
    for index, operation in enumerate(patch):
        patcher.apply(index, operation)
    return patcher.document
