import pytest

from table import format_table


def test_right_and_centre():
    out = format_table([["a", 1, "x"], ["bbb", 222, "yyyy"]], align="lrc")
    assert out.splitlines() == ["a   |   1 |  x", "bbb | 222 | yyyy"]


def test_centre_puts_extra_space_on_the_right():
    assert format_table([["ab"], ["abcde"]], align="c").splitlines()[0] == " ab"


def test_with_header():
    out = format_table([["x", 1]], header=["name", "n"], align="rr")
    assert out == "name | n\n-----+--\n   x | 1"


@pytest.mark.parametrize("bad", ["l", "lrr", "lx"])
def test_bad_align_is_an_error(bad):
    with pytest.raises(ValueError):
        format_table([["a", 1]], align=bad)
