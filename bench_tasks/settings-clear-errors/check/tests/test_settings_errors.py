import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.errors import SettingsError
from app.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path, text):
    p = tmp_path / "settings.json"
    p.write_text(text)
    return p


def test_defaults(tmp_path):
    p = write(tmp_path, json.dumps({"name": "x", "port": 1}))
    assert load_settings(p) == Settings("x", 1, False, [])


@pytest.mark.parametrize("data,key", [
    ({"port": 80}, "name"),
    ({"name": "x"}, "port"),
    ({"name": 3, "port": 80}, "name"),
    ({"name": "x", "port": "80"}, "port"),
    ({"name": "x", "port": 0}, "port"),
    ({"name": "x", "port": 70000}, "port"),
    ({"name": "x", "port": True}, "port"),
    ({"name": "x", "port": 80, "debug": "yes"}, "debug"),
    ({"name": "x", "port": 80, "tags": "a,b"}, "tags"),
    ({"name": "x", "port": 80, "tags": ["a", 1]}, "tags"),
])
def test_bad_values_name_the_file_and_key(tmp_path, data, key):
    p = write(tmp_path, json.dumps(data))
    with pytest.raises(SettingsError) as e:
        load_settings(p)
    assert str(p) in str(e.value) and key in str(e.value)


def test_not_an_object(tmp_path):
    with pytest.raises(SettingsError):
        load_settings(write(tmp_path, "[1, 2]"))


def test_broken_json_names_the_line(tmp_path):
    p = write(tmp_path, '{\n  "name": "x",\n  "port": 80,,\n}')
    with pytest.raises(SettingsError) as e:
        load_settings(p)
    assert str(p) in str(e.value) and "3" in str(e.value)


def test_main_prints_one_line_and_exits_2(tmp_path):
    p = write(tmp_path, json.dumps({"name": "x"}))
    out = subprocess.run([sys.executable, "-m", "app.main", str(p)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and "port" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_main_still_works(tmp_path):
    p = write(tmp_path, json.dumps({"name": "api", "port": 81, "debug": True}))
    out = subprocess.run([sys.executable, "-m", "app.main", str(p)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "api on port 81 (debug)"
