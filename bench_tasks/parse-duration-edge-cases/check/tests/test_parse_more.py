import pytest

from durations import format_duration, parse_duration


@pytest.mark.parametrize("text,seconds", [
    ("1d", 86400), ("1d 2h", 93600), (" 45s ", 45), ("90", 90), ("1h 1m 1s", 3661),
    ("0s", 0), ("10m5s", 605), ("2d3s", 172803),
])
def test_valid(text, seconds):
    assert parse_duration(text) == seconds
    assert isinstance(parse_duration(text), int)


@pytest.mark.parametrize("text", ["", "  ", "5x", "1h1h", "1m1h", "-5s", "h", "1.5h", "1 h"])
def test_invalid(text):
    with pytest.raises(ValueError) as e:
        parse_duration(text)
    assert repr(text) in str(e.value)


def test_round_trip():
    for s in (1, 59, 61, 3600, 90061, 200000):
        assert parse_duration(format_duration(s)) == s
