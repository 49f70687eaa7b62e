"""JSON Schemas for tool parameters, made acceptable to every provider. Imports nothing heavy.

Larik's own tools have small pydantic schemas; tools from MCP servers bring whatever their
authors wrote. Two steps:

* :func:`tool_schema` — for every provider, once, when a foreign tool is registered: a
  top-level ``{"type": "object", "properties": …}`` (Anthropic and OpenAI require it; a
  top-level ``anyOf``/``oneOf``/``allOf`` is refused by Anthropic), local ``$ref``\\ s inlined
  (``#/$defs/…``, ``#/definitions/…``; a recursive one becomes ``{}`` past a depth), and the
  keys no model needs dropped (``$schema``, ``$id``, ``$comment``, ``title``, ``examples``).
  OpenAI's tools are sent with ``strict: false`` (see ``openai_responses_convert``), so strict
  mode's extra rules (every property required, ``additionalProperties: false`` everywhere)
  do not apply.
* :func:`gemini_schema` — in the Gemini converter: Gemini takes a subset (OpenAPI 3.0's
  ``Schema``): a whitelist of keywords, ``type`` a single string (``["string", "null"]`` becomes
  ``type: string, nullable: true``), ``const`` as a one-value ``enum``, ``enum`` of strings only,
  an ``array`` always with ``items``, ``required`` naming only listed properties.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_DEPTH", "gemini_schema", "tool_schema"]

MAX_DEPTH = 12
_DROP = frozenset({"$schema", "$id", "$comment", "title", "examples", "$defs", "definitions"})
_GEMINI_KEYS = frozenset(
    {
        "type",
        "description",
        "enum",
        "format",
        "nullable",
        "items",
        "properties",
        "required",
        "anyOf",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "default",
    }
)
_GEMINI_FORMATS = frozenset({"enum", "date-time", "int32", "int64", "float", "double"})


def tool_schema(raw: Any) -> dict[str, Any]:
    """A foreign tool's input schema in a shape every adapter can send."""
    if not isinstance(raw, dict):
        return {"type": "object", "properties": {}}
    defs = {**_as_dict(raw.get("definitions")), **_as_dict(raw.get("$defs"))}
    out = _clean(raw, defs, 0)
    if not isinstance(out, dict):
        out = {}
    if out.get("type") != "object" or any(k in out for k in ("anyOf", "oneOf", "allOf")):
        # a top-level union: keep the properties it names, as optional ones
        props: dict[str, Any] = dict(_as_dict(out.get("properties")))
        for key in ("anyOf", "oneOf", "allOf"):
            for alt in out.get(key) or []:
                if isinstance(alt, dict):
                    props.update(_as_dict(alt.get("properties")))
        kept = {k: v for k, v in out.items() if k in ("description", "additionalProperties")}
        out = {"type": "object", "properties": props, **kept}
    out.setdefault("properties", {})
    return out


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _clean(node: Any, defs: dict[str, Any], depth: int, in_props: bool = False) -> Any:
    if depth > MAX_DEPTH:
        return {}
    if isinstance(node, list):
        return [_clean(v, defs, depth + 1) for v in node]
    if not isinstance(node, dict):
        return node
    if in_props:  # keys are property names, not keywords
        return {k: _clean(v, defs, depth + 1) for k, v in node.items()}
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = _resolve(ref, defs)
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs, depth + 1)
    return {
        k: _clean(v, defs, depth + 1, in_props=k == "properties")
        for k, v in node.items()
        if k not in _DROP
    }


def _resolve(ref: str, defs: dict[str, Any]) -> dict[str, Any]:
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix):
            return _as_dict(defs.get(ref[len(prefix) :]))
    return {}  # remote or unknown refs: any value


# ------------------------------------------------------------------------------------ Gemini


def gemini_schema(schema: Any, depth: int = 0) -> dict[str, Any]:
    """``schema`` (already through :func:`tool_schema`) in the subset Gemini accepts."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return {"type": "string"} if depth else {"type": "object", "properties": {}}
    out: dict[str, Any] = {}
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        if len(kinds) < len(kind):
            out["nullable"] = True
        kind = kinds[0] if len(kinds) == 1 else None
        if len(kinds) > 1:
            out["anyOf"] = [{"type": k} for k in kinds]
    if isinstance(kind, str):
        out["type"] = kind
    if "const" in schema:
        schema = {**schema, "enum": [schema["const"]]}
    for key, value in schema.items():
        if key not in _GEMINI_KEYS or key == "type":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {str(k): gemini_schema(v, depth + 1) for k, v in value.items()}
        elif key == "items":
            out[key] = gemini_schema(value, depth + 1)
        elif key == "anyOf" and isinstance(value, list):
            alts = [gemini_schema(v, depth + 1) for v in value if v != {"type": "null"}]
            if len(alts) < len(value):
                out["nullable"] = True
            if len(alts) == 1:
                out.update({k: v for k, v in alts[0].items() if k not in out})
            elif alts:
                out[key] = alts
        elif key == "enum":
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                out[key] = value
                out.setdefault("type", "string")
        elif key == "format":
            if value in _GEMINI_FORMATS:
                out[key] = value
        else:
            out[key] = value
    if out.get("type") == "array" and "items" not in out:
        out["items"] = {"type": "string"}
    if "items" in out and out.get("type") != "array":
        out.pop("items") if "type" in out else out.setdefault("type", "array")
    if isinstance(out.get("properties"), dict):
        out.setdefault("type", "object")
        req = out.get("required")
        if isinstance(req, list):
            kept = [r for r in req if r in out["properties"]]
            if kept:
                out["required"] = kept
            else:
                out.pop("required")
    elif "required" in out:
        out.pop("required")
    if depth == 0:
        out["type"] = "object"
        out.setdefault("properties", {})
    return out
