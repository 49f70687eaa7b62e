from durations import format_duration, parse_duration


def test_hours_minutes():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("2h") == 7200


def test_format():
    assert format_duration(90061) == "1d1h1m1s"
    assert format_duration(0) == "0s"
