import pytest

from stats import mean, median


def test_mean_of_integers():
    assert mean([1, 2, 3, 4]) == 2.5


def test_median_odd_and_even():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5


def test_empty_is_an_error():
    with pytest.raises(ValueError):
        mean([])


def test_mean_of_floats_and_negatives():
    assert mean([0.5, 1.5]) == 1.0
    assert mean([-3, 4]) == 0.5
    assert mean([7]) == 7
