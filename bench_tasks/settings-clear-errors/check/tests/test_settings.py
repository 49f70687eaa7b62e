import json

from app.settings import Settings, load_settings


def test_valid_file(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"name": "api", "port": 8080, "tags": ["a"]}))
    assert load_settings(p) == Settings(name="api", port=8080, debug=False, tags=["a"])
