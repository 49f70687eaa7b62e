from textutils import slugify, word_count


def test_word_count():
    assert word_count("a b  c") == 3


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_accents_and_runs():
    assert slugify("  Crème   brûlée -- à la carte ") == "creme-brulee-a-la-carte"


def test_digits_kept_and_symbols_collapsed():
    assert slugify("Python 3.11 / release_notes") == "python-3-11-release-notes"


def test_empty_and_symbols_only():
    assert slugify("") == ""
    assert slugify("!!!") == ""


def test_max_length_cuts_at_boundary():
    assert slugify("one two three four", max_length=12) == "one-two"
    assert slugify("abcdefghijkl", max_length=5) == "abcde"
    assert len(slugify("word " * 40)) <= 50
    assert not slugify("word " * 40).endswith("-")
