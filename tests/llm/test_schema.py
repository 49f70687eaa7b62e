"""Foreign tool schemas (MCP servers') made acceptable to every provider: larik/llm/schema.py."""

from __future__ import annotations

from larik.llm.schema import gemini_schema, tool_schema
from larik.llm.types import Request, ToolSpec

# what an MCP server may send: refs, a top-level union, titles, $schema, a type list, const
HOSTILE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Args",
    "anyOf": [
        {"type": "object", "properties": {"id": {"$ref": "#/$defs/Id"}}},
        {"type": "object", "properties": {"name": {"type": ["string", "null"], "title": "N"}}},
    ],
    "$defs": {"Id": {"type": "integer", "title": "Id", "description": "an id"}},
}


def test_a_top_level_union_becomes_an_object_with_its_properties():
    out = tool_schema(HOSTILE)
    assert out["type"] == "object" and "anyOf" not in out
    assert out["properties"]["id"] == {"type": "integer", "description": "an id"}
    assert out["properties"]["name"] == {"type": ["string", "null"]}
    assert "$schema" not in out and "$defs" not in out and "title" not in out


def test_a_property_named_title_is_kept():
    out = tool_schema({"type": "object", "properties": {"title": {"type": "string"}}})
    assert out["properties"] == {"title": {"type": "string"}}


def test_a_recursive_ref_ends_at_a_depth_limit():
    schema = {
        "type": "object",
        "properties": {"node": {"$ref": "#/definitions/Node"}},
        "definitions": {
            "Node": {"type": "object", "properties": {"child": {"$ref": "#/definitions/Node"}}}
        },
    }
    out = tool_schema(schema)
    depth, node = 0, out["properties"]["node"]
    while node.get("properties"):
        node, depth = node["properties"]["child"], depth + 1
    assert 0 < depth < 20


def test_not_an_object_at_all_is_an_empty_object_schema():
    assert tool_schema(["x"]) == {"type": "object", "properties": {}}
    assert tool_schema({"type": "string"})["type"] == "object"


def test_gemini_gets_its_subset():
    schema = tool_schema(
        {
            "type": "object",
            "properties": {
                "name": {"type": ["string", "null"]},
                "mode": {"const": "fast"},
                "tags": {"type": "array"},
                "n": {"type": "integer", "exclusiveMinimum": 0, "format": "uint32"},
                "kind": {"enum": [1, 2]},
                "extra": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["name", "ghost"],
            "additionalProperties": False,
        }
    )
    out = gemini_schema(schema)
    props = out["properties"]
    assert props["name"] == {"nullable": True, "type": "string"}
    assert props["mode"] == {"enum": ["fast"], "type": "string"}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["n"] == {"type": "integer"}
    assert "enum" not in props["kind"]  # Gemini takes string enums only
    assert "additionalProperties" not in props["extra"] and "additionalProperties" not in out
    assert out["required"] == ["name"]


def test_the_gemini_request_declares_the_subset():
    from larik.llm.providers.gemini_convert import build_config

    schema = tool_schema({"type": "object", "properties": {"a": {"type": ["integer", "null"]}}})
    request = Request(
        model="gemini-2.5-flash",
        messages=[],
        tools=[ToolSpec(name="mcp__s__t", description="d", input_schema=schema)],
    )
    decl = build_config(request).tools[0].function_declarations[0]
    assert decl.parameters_json_schema == {
        "type": "object",
        "properties": {"a": {"nullable": True, "type": "integer"}},
    }
