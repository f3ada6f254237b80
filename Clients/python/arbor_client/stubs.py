"""Typed intent stubs from a daemon's ``rpc.discover``: one class per model type, one
method per intent, with its parameters as typed keyword arguments and a docstring, so
that an editor completes intent names and parameters::

    python -m arbor_client stubs /run/arbor/counterfactd.sock > mytree.py

then::

    import arbor_client, mytree
    client = arbor_client.Client()
    mytree.root(client).addButtonTapped()
    mytree.CounterModel(client, "/counters/0/counter").incrementTapped()

``generate(document)`` is the same from a discover document already read.
"""

from __future__ import annotations

import json
import keyword
import re
from typing import Any, Dict, List, Optional, Set, Tuple

_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_WORDS = {
    "string": "a string", "integer": "an integer", "number": "a number", "boolean": "a boolean",
    "null": "null", "array": "an array", "object": "an object",
}
#: Names the generated base class uses: intents and parameters are renamed around them.
_RESERVED = {"self", "_call", "_client", "_target", "MODEL_TYPE", "INTENTS"}


def identifier(name: str, taken: Set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """A Python identifier for a name from the daemon: a keyword gets a trailing
    underscore, other characters become ``_``.

    Example::

        assert identifier("from") == "from_" and identifier("a-b") == "a_b"
    """
    text = re.sub(r"\W", "_", name) or "_"
    if text[0].isdigit():
        text = "_" + text
    if keyword.iskeyword(text) or text in _RESERVED or text in taken:
        text += "_"
    while text in taken:
        text += "_"
    return text


class _Schemas:
    """Renders JSON Schemas as Python types and as short phrases."""

    def __init__(self, definitions: Dict[str, Any]):
        self.definitions = definitions

    def _resolve(self, schema: Dict[str, Any]) -> Tuple[Optional[str], Optional[Dict[str, Any]]]:
        reference = schema.get("$ref")
        if not isinstance(reference, str):
            return None, schema
        name = reference.rsplit("/", 1)[-1]
        return name, self.definitions.get(name) if reference.startswith("#/$defs/") else None

    def python(self, schema: Any, depth: int = 0) -> str:
        """The type annotation of values of ``schema``."""
        if not isinstance(schema, dict) or depth > 6:
            return "Any"
        if "$ref" in schema:
            name, target = self._resolve(schema)
            if target is None or name in self.definitions and depth > 1:
                return "Dict[str, Any]" if target is not None and target.get("type") == "object" else "Any"
            return self.python(target, depth + 1)
        if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
            return "Literal[" + ", ".join(_literal(value) for value in schema["enum"]) + "]"
        if "const" in schema:
            return f"Literal[{_literal(schema['const'])}]"
        for combinator in ("anyOf", "oneOf"):
            if isinstance(schema.get(combinator), list):
                return _union([self.python(member, depth + 1) for member in schema[combinator]])
        types = schema.get("type")
        if isinstance(types, list):
            return _union([self.python(dict(schema, type=one), depth + 1) for one in types])
        if types in _SCALARS:
            return _SCALARS[types]
        if types == "array":
            return f"List[{self.python(schema.get('items', {}), depth + 1)}]"
        if types == "object":
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                return f"Dict[str, {self.python(extra, depth + 1)}]"
            return "Dict[str, Any]"
        return "Any"

    def phrase(self, schema: Any, depth: int = 0) -> str:
        """What values of ``schema`` are, in a few words."""
        if schema is True or schema == {}:
            return "any JSON value"
        if not isinstance(schema, dict) or depth > 4:
            return "a JSON value"
        words: List[str] = []
        if "$ref" in schema:
            name, target = self._resolve(schema)
            if target is None:
                words.append(f"a {name} (the daemon's document does not describe it)")
            elif target.get("type") == "object" and depth > 0:
                words.append(f"a {name} object")
            else:
                words.append(f"a {name}: {self.phrase(target, depth + 1)}")
        elif isinstance(schema.get("enum"), list):
            words.append("one of " + ", ".join(json.dumps(value) for value in schema["enum"]))
        elif "const" in schema:
            words.append(f"exactly {json.dumps(schema['const'])}")
        elif isinstance(schema.get("anyOf") or schema.get("oneOf"), list):
            members = schema.get("anyOf") or schema.get("oneOf")
            words.append(" or ".join(self.phrase(member, depth + 1) for member in members))
        else:
            types = schema.get("type")
            types = types if isinstance(types, list) else [types] if types else []
            words.append(" or ".join(_WORDS.get(one, str(one)) for one in types) or "any JSON value")
            if "array" in types and isinstance(schema.get("items"), dict) and schema["items"]:
                words.append(f"of {self.phrase(schema['items'], depth + 1)}")
            if "object" in types and isinstance(schema.get("properties"), dict) and schema["properties"]:
                words.append("with " + ", ".join(schema["properties"]))
        if isinstance(schema.get("pattern"), str):
            words.append(f"matching {schema['pattern']}")
        if "minimum" in schema:
            words.append(f"≥ {schema['minimum']}")
        if "maximum" in schema:
            words.append(f"≤ {schema['maximum']}")
        if isinstance(schema.get("description"), str):
            words.append(f"({schema['description']})")
        return " ".join(words)


def _literal(value: Any) -> str:
    return "None" if value is None else repr(value)


def _union(parts: List[str]) -> str:
    unique: List[str] = []
    for part in parts:
        if part not in unique:
            unique.append(part)
    if "Any" in unique:
        return "Any"
    optional = "None" in unique
    rest = [part for part in unique if part != "None"]
    if not rest:
        return "None"
    inner = rest[0] if len(rest) == 1 else "Union[" + ", ".join(rest) + "]"
    return f"Optional[{inner}]" if optional else inner


def _docstring(text: str, indent: str) -> str:
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = body.split("\n")
    rendered = [lines[0]] + [(indent + line) if line else "" for line in lines[1:]]
    return f'{indent}"""' + "\n".join(rendered) + (f"\n{indent}" if len(lines) > 1 else "") + '"""\n'


def _without_null(schema: Any) -> Any:
    """An optional parameter's schema without its ``null`` member (None leaves it out)."""
    if not isinstance(schema, dict):
        return schema
    for combinator in ("anyOf", "oneOf"):
        members = schema.get(combinator)
        if isinstance(members, list):
            rest = [m for m in members if not (isinstance(m, dict) and m.get("type") == "null")]
            if len(rest) == 1 and isinstance(rest[0], dict):
                merged = dict(rest[0])
                if "description" in schema and "description" not in merged:
                    merged["description"] = schema["description"]
                return merged
            return dict(schema, **{combinator: rest})
    return schema


def example_paths(state: Dict[str, Any], definitions: Dict[str, Any]) -> Dict[str, str]:
    """A path where each model type of the state schema can be found (its first, an
    array's element taken at index 0, a dictionary's at ``KEY``).

    Example::

        paths = example_paths(state_schema, state_schema["$defs"])
        assert paths["CounterModel"] == "/counters/0/counter"
    """
    found: Dict[str, str] = {}
    queue: List[Tuple[Any, str, int]] = [(state, "", 0)]
    while queue:
        schema, path, depth = queue.pop(0)
        if not isinstance(schema, dict) or depth > 24:
            continue
        reference = schema.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            name = reference.rsplit("/", 1)[-1]
            if name in found:
                continue
            found[name] = path
            queue.append((definitions.get(name), path, depth + 1))
            continue
        for combinator in ("anyOf", "oneOf", "allOf"):
            for member in schema.get(combinator) or []:
                queue.append((member, path, depth + 1))
        for name, member in (schema.get("properties") or {}).items():
            if name != "id":
                queue.append((member, path + "/" + name.replace("~", "~0").replace("/", "~1"), depth + 1))
        if isinstance(schema.get("items"), dict):
            queue.append((schema["items"], path + "/0", depth + 1))
        if isinstance(schema.get("additionalProperties"), dict):
            queue.append((schema["additionalProperties"], path + "/KEY", depth + 1))
    return found


def _method(schemas: _Schemas, model: str, intent: str, method: str, spec: Dict[str, Any]) -> str:
    params = spec.get("params") if isinstance(spec, dict) else None
    params = params if isinstance(params, dict) else {}
    properties = params.get("properties") if isinstance(params.get("properties"), dict) else {}
    required = [name for name in params.get("required", []) if name in properties]
    optional = [name for name in properties if name not in required]
    taken: Set[str] = set()
    arguments: List[str] = []
    lines: List[str] = []
    described: List[str] = []
    for name in required + optional:
        python_name = identifier(name, taken)
        taken.add(python_name)
        schema = properties[name]
        annotation = schemas.python(schema)
        wire = "" if python_name == name else f", sent as {name!r}"
        if name in required:
            arguments.append(f"{python_name}: {annotation}")
            lines.append(f"        params[{name!r}] = {python_name}")
            described.append(f"    {python_name}: {schemas.phrase(schema)} (required{wire}).")
        else:
            if annotation != "Any" and not annotation.startswith("Optional["):
                annotation = f"Optional[{annotation}]"
            arguments.append(f"{python_name}: {annotation} = None")
            lines.append(f"        if {python_name} is not None:")
            lines.append(f"            params[{name!r}] = {python_name}")
            described.append(f"    {python_name}: {schemas.phrase(_without_null(schema))} (optional: left out when None{wire}).")
    signature = ", ".join(["self"] + (["*"] + arguments if arguments else []))
    result = spec.get("result") if isinstance(spec, dict) else None
    returns = "null" if isinstance(result, dict) and result.get("type") == "null" else schemas.phrase(result)
    doc = [f"Calls {model}.{intent} (intent.call)" + ("; it takes no parameters." if not arguments else ".")]
    if described:
        doc += ["", "Args:"] + described
    doc += ["", "Returns:", f"    arbor_client.IntentResult, whose result is {returns}."]
    text = f"    def {method}({signature}) -> \"arbor_client.IntentResult\":\n"
    text += _docstring("\n".join(doc), "        ")
    text += "        params: Dict[str, Any] = {}\n"
    text += "".join(line + "\n" for line in lines)
    text += f"        return self._call({intent!r}, params)\n"
    return text


def generate(document: Dict[str, Any], source: str = "SOCKET") -> str:
    """The Python module of a discover document's intents.

    Example::

        text = generate(client.discover(), source=client.socket)
        namespace: dict = {}
        exec(compile(text, "mytree.py", "exec"), namespace)
        assert "incrementTapped" in namespace["CounterModel"].INTENTS
    """
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    daemon = str(info.get("title", "the daemon"))
    version = str(info.get("version", ""))
    components = document.get("components") if isinstance(document.get("components"), dict) else {}
    intents = components.get("x-intents") if isinstance(components.get("x-intents"), dict) else {}
    state = (components.get("schemas") or {}).get("State") or {}
    definitions = state.get("$defs") if isinstance(state.get("$defs"), dict) else {}
    root_type = state.get("title") or str(state.get("$ref", "")).rsplit("/", 1)[-1] or None
    schemas = _Schemas(definitions)
    where = example_paths(state, definitions)

    models = sorted(intents)
    if root_type and root_type not in models:
        models.insert(0, root_type)
    class_names: Dict[str, str] = {}
    taken_classes = {"Model", "Any", "Dict", "List", "Literal", "Optional", "Union", "arbor_client", "root", "MODELS"}
    for model in models:
        name = identifier(model, taken_classes)
        taken_classes.add(name)
        class_names[model] = name

    out: List[str] = []
    example_model = next((m for m in models if m != root_type and intents.get(m)), None)
    example = ""
    if root_type and intents.get(root_type):
        example += f"    mytree.root(client).{identifier(sorted(intents[root_type])[0])}()\n"
    if example_model:
        path = where.get(example_model, "/path/to/it")
        example += f"    mytree.{class_names[example_model]}(client, {path!r}).{identifier(sorted(intents[example_model])[0])}()\n"
    header = (
        f"Intent stubs of {daemon} {version}: one class per model type, one method per intent.\n\n"
        f"Generated by `python -m arbor_client stubs {source}` from the daemon's rpc.discover;\n"
        "generate them again when its models change.\n\n"
        "    import arbor_client\n    import mytree\n\n    client = arbor_client.Client()\n"
        + example
        + "\nA model is reached by its path (a JSON Pointer; \"\" is the root) or by its id\n"
        "(`id=\"...\"`). Each method returns the call's arbor_client.IntentResult (with an\n"
        "AsyncClient, a coroutine to await) and raises the daemon's refusal as its\n"
        "arbor_client.ArborError subclass.\n"
    )
    out.append(_docstring(header.rstrip("\n"), ""))
    out.append(
        "\nfrom __future__ import annotations\n\n"
        "from typing import Any, Dict, List, Literal, Optional, Union\n\n"
        "import arbor_client\n\n"
        f"DAEMON = {daemon!r}\n"
        f"VERSION = {version!r}\n"
        f"ROOT = {root_type!r}\n\n\n"
        "class Model:\n"
        + _docstring("A model of the tree: its client and its target, a path or an id.", "    ")
        + "\n"
        "    MODEL_TYPE = \"\"\n"
        "    INTENTS: tuple = ()\n\n"
        "    def __init__(self, client: Any, path: str = \"\", *, id: Optional[str] = None) -> None:\n"
        "        self._client = client\n"
        "        self._target: Any = {\"id\": id} if id is not None else path\n\n"
        "    def __repr__(self) -> str:\n"
        "        return f\"{type(self).__name__}({self._target!r})\"\n\n"
        "    def _call(self, intent: str, params: Dict[str, Any]) -> Any:\n"
        "        return self._client.call_intent(self._target, intent, params)\n"
    )
    for model in models:
        names = sorted(intents.get(model) or {})
        role = " (the root)" if model == root_type else ""
        summary = f"{model}{role}: " + (", ".join(names) if names else "no intents") + "."
        if model != root_type and model in where:
            summary += f"\n\nFor example at {where[model]!r}: {class_names[model]}(client, {where[model]!r})."
        out.append(f"\n\nclass {class_names[model]}(Model):\n")
        out.append(_docstring(summary, "    "))
        out.append(f"\n    MODEL_TYPE = {model!r}\n")
        out.append(f"    INTENTS = {tuple(names)!r}\n")
        taken_methods: Set[str] = set()
        for intent in names:
            method = identifier(intent, taken_methods)
            taken_methods.add(method)
            out.append("\n" + _method(schemas, model, intent, method, intents[model][intent]))
    out.append("\n\nMODELS: Dict[str, type] = {\n")
    for model in models:
        out.append(f"    {model!r}: {class_names[model]},\n")
    out.append("}\n")
    if root_type:
        out.append(
            f"\n\ndef root(client: Any) -> {class_names[root_type]}:\n"
            + _docstring(f"The root model, {root_type}, of `client`'s daemon.", "    ")
            + f"    return {class_names[root_type]}(client, \"\")\n"
        )
    return "".join(out)
