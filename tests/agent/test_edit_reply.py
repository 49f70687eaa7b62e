"""The edit workflow's reply parser (issue 24 item 5): whole files and search/replace blocks as
small models write them, and the replies that must apply nothing (cut off, elided, malformed)."""

from __future__ import annotations

from larik.agent.edit_reply import format_rules, parse_reply

WHOLE = "Fix the sign.\n\ncalc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"


def test_a_whole_file_under_its_path_is_one_edit():
    p = parse_reply(WHOLE)
    assert not p.problems
    [e] = p.edits
    assert (e.path, e.whole) == ("calc.py", "def add(a, b):\n    return a + b\n")


def test_the_path_may_be_decorated_as_small_models_write_it():
    for line in ("**calc.py**", "`calc.py`", "### calc.py", "calc.py:", "File: calc.py"):
        p = parse_reply(f"{line}\n```python\nx = 1\n```\n")
        assert [e.path for e in p.edits] == ["calc.py"], line


def test_the_path_may_be_on_the_fence_or_in_a_first_line_comment():
    assert parse_reply("```python app/x.py\nx = 1\n```\n").edits[0].path == "app/x.py"
    p = parse_reply("```python\n# app/x.py\nx = 1\n```\n")
    assert (p.edits[0].path, p.edits[0].whole) == ("app/x.py", "x = 1\n")


def test_a_sentence_naming_one_shown_file_gives_the_block_its_path():
    p = parse_reply("Here is the fixed `stats.py`:\n```python\nx = 1\n```\n", known=["stats.py"])
    assert p.edits[0].path == "stats.py"


def test_a_sentence_naming_a_shown_file_by_its_name_alone_gives_its_path():
    """Measured: the 1.5B model fixed shop/inventory.py's loop under "Here's the updated
    `inventory.py`:", three replies running, and none was applied."""
    reply = "Here's the updated `inventory.py`:\n```python\nx = 1\n```\n"
    known = ["shop/inventory.py", "shop/parser.py"]
    assert parse_reply(reply, known=known).edits[0].path == "shop/inventory.py"
    both = ["shop/__init__.py", "tools/__init__.py"]  # a name two files have names neither
    p = parse_reply("The new `__init__.py`:\n```python\nx = 1\n```\n", known=both)
    assert not p.edits and "no file path" in p.problems[0].why


def test_a_block_without_a_path_is_the_focus_file_or_a_problem():
    reply = "```python\nx = 1\n```\n"
    assert parse_reply(reply, default_path="calc.py").edits[0].path == "calc.py"
    p = parse_reply(reply)
    assert not p.edits and "no file path" in p.problems[0].why


def test_two_files_in_one_reply():
    reply = "a.py\n```python\na = 1\n```\nAnd now b.py:\n```python\nb = 2\n```\n"
    p = parse_reply(reply, known=["a.py", "b.py"])
    assert [(e.path, e.whole) for e in p.edits] == [("a.py", "a = 1\n"), ("b.py", "b = 2\n")]


def test_a_block_that_never_closes_applies_nothing():
    """A reply cut off at the output limit (or abandoned) ends inside its code block."""
    p = parse_reply("calc.py\n```python\ndef add(a, b):\n    return a +")
    assert not p.edits
    assert "never ends" in p.problems[0].why and p.problems[0].path == "calc.py"


def test_a_whole_file_with_an_elision_is_refused():
    for gap in ("# ... rest of the code unchanged", "# rest of the file stays the same", "# ..."):
        p = parse_reply(f"calc.py\n```python\ndef add(a, b):\n    return a + b\n{gap}\n```\n")
        assert not p.edits, gap
        assert "leaves lines out" in p.problems[0].why


def test_python_ellipsis_is_code_not_an_elision():
    p = parse_reply("calc.py\n```python\ndef stub():\n    ...\n```\n")
    assert p.edits[0].whole == "def stub():\n    ...\n"


def test_search_replace_blocks_inside_a_fence():
    reply = (
        "calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n"
        ">>>>>>> REPLACE\n<<<<<<< SEARCH\ndef add\n=======\ndef plus\n>>>>>>> REPLACE\n```\n"
    )
    [e] = parse_reply(reply).edits
    assert e.whole is None
    assert e.blocks == [("    return a - b\n", "    return a + b\n"), ("def add\n", "def plus\n")]


def test_search_replace_blocks_without_a_fence():
    reply = "calc.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    assert parse_reply(reply).edits[0].blocks == [("x = 1\n", "x = 2\n")]


def test_a_search_replace_block_missing_a_marker_applies_nothing():
    for broken in (
        "calc.py\n```\n<<<<<<< SEARCH\nx = 1\n>>>>>>> REPLACE\n```\n",  # no =======
        "calc.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n```\n",  # no REPLACE
    ):
        p = parse_reply(broken)
        assert not p.edits and p.problems, broken


def test_a_reply_with_no_code_is_an_answer():
    assert parse_reply("The function is compute_invoice_total.").empty


def test_the_rules_have_no_example_to_copy_and_a_copy_of_the_old_one_is_refused():
    """A 0.5B model copied the old placeholder ("the whole file, every line of it") into the
    file, then a concrete example's sentence as its answer: the rules now describe the format
    only, and a reply that repeats the old example applies nothing."""
    rules = format_rules("whole")
    assert "COMPLETE new content" in rules and "every line of it" not in rules
    assert "greet" not in rules and "<<<<<<< SEARCH" in format_rules("diff")
    p = parse_reply('stats.py\n```python\ndef greet(name):\n    return "hello " + name\n```\n')
    assert not p.edits and "the example" in p.problems[0].why


def test_an_edit_said_in_a_sentence_is_a_search_and_replace():
    """Measured: asked for the whole file, the 1.5B model answered twice running "Change
    `shop/inventory.py` line 16 from `for item in in_stock(items)[1:]` to `for item in
    in_stock(items)`." — the right fix, in words, and nothing was changed."""
    known = ["shop/inventory.py", "shop/parser.py", "calc.py"]
    said = (
        "Change `shop/inventory.py` line 16 from `for item in in_stock(items)[1:]` to "
        "`for item in in_stock(items)`."
    )
    [edit] = parse_reply(said, known=known).edits
    assert edit.path == "shop/inventory.py"
    assert edit.blocks == [("for item in in_stock(items)[1:]", "for item in in_stock(items)")]
    for said in (
        "Replace `a - b` with `a + b` in calc.py.",
        "In calc.py, change `a - b` to `a + b`.",
    ):
        [edit] = parse_reply(said, known=known).edits
        assert (edit.path, edit.blocks) == ("calc.py", [("a - b", "a + b")]), said
    assert parse_reply("Change `a - b` to `a + b`.", default_path="calc.py").edits[0].path == (
        "calc.py"
    )
    # no file named and no one file the request is about; a file renamed; no change; a reply
    # with a code block is read as its blocks
    assert not parse_reply("Change `a - b` to `a + b`.", known=known).edits
    assert not parse_reply("Change `shop/parser.py` to `calc.py`.", known=known).edits
    assert not parse_reply("In calc.py change `a` to `a`.", known=known).edits
    fenced = "In calc.py change `a - b` to `a + b`:\n```python\nx = 1\n```\n"
    assert parse_reply(fenced, known=known).edits[0].whole == "x = 1\n"


def test_two_blocks_said_as_from_and_to_are_a_search_and_replace():
    """Measured (implement-stub, the third reply): "The line 15 of textutils.py should be
    changed from: ```A``` to: ```B```" was taken for two whole files, the second one line, and
    that line was written as textutils.py."""
    known = ["textutils.py", "tests/test_textutils.py"]
    old = "text = re.sub(r'[^a-z]', '-', text)\n"
    new = "text = re.sub(r'[^a-z]', '-', text).lower()\n"
    for before, between in [
        ("The line 15 of textutils.py should be changed from:", "to:"),
        ("In textutils.py, replace this line:", "with this:"),
        ("Change textutils.py from", "To"),
    ]:
        said = f"{before}\n```python\n{old}```\n{between}\n```python\n{new}```\n\nThat is all.\n"
        [edit] = parse_reply(said, "", known).edits
        assert (edit.path, edit.whole, edit.blocks) == ("textutils.py", None, [(old, new)]), before
    # a second block with a path of its own, words between that are not "to:", or none that
    # say a change: two files, each whole
    two = [
        "Fixed textutils.py:\n```python\nA = 1\n```\nto:\n```python\nB = 2\n```\n",
        "Change textutils.py:\n```python\nA = 1\n```\nAnd the tests:\n```python\nB = 2\n```\n",
        "Change textutils.py from:\n```python\nA = 1\n```\nto:\n"
        "```python tests/test_textutils.py\nB = 2\n```\n",
    ]
    for said in two:
        p = parse_reply(said, "textutils.py", known)
        assert all(e.whole is not None and not e.blocks for e in p.edits), said


def test_an_edit_said_in_words_naming_no_file_is_in_the_one_file_that_has_its_text():
    """Measured: "Change `for item in in_stock(items)[1:]` to `for item in in_stock(items):`."
    — no file named, and a colon the text it replaces does not have."""
    texts = {
        "shop/inventory.py": "def t(items):\n    for item in in_stock(items)[1:]:\n        pass\n",
        "shop/parser.py": "def p():\n    return 1\n",
    }
    said = "Change `for item in in_stock(items)[1:]` to `for item in in_stock(items):`."
    [edit] = parse_reply(said, known=list(texts), texts=texts).edits
    assert edit.path == "shop/inventory.py"
    assert edit.blocks == [("for item in in_stock(items)[1:]", "for item in in_stock(items)")]
    texts["shop/parser.py"] += "# for item in in_stock(items)[1:]\n"  # two files have it
    assert not parse_reply(said, known=list(texts), texts=texts).edits
