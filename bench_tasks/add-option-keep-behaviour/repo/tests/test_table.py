from table import format_table


def test_plain():
    assert format_table([["a", 1], ["bbb", 22]]) == "a   | 1\nbbb | 22"


def test_header():
    assert format_table([["x", 1]], header=["name", "n"]) == "name | n\n-----+--\nx    | 1"


def test_empty():
    assert format_table([]) == ""
