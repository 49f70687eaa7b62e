"""The loop that leaves a row out (issue 24): a total short by the first (or last) row of its
input points at the one loop over a slice or range that skips it, and when a reply leaves that
loop as it was, the line is asked for alone. Scripted model, real files, real bash (sandboxed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.agent.edit_line import LineAsk, for_skip, message, parsed
from larik.agent.edit_repair import keep_renamed, methods_into
from larik.agent.skips import Skip, left_out
from larik.config import Config
from larik.config.providers import ModelOverride

from .conftest import E, of, run, script

CSV = "sku,name,unit_price,quantity\nA1,widget,2.50,10\nB2,gadget,12.00,3\nC3,gizmo,0.75,150\n"
GIVEN = [("data/stock.csv", CSV)]
INVENTORY = (
    '"""Inventory arithmetic."""\n\n\ndef line_value(item):\n    return item[0] * item[1]\n\n\n'
    "def total_value(items):\n    total = 0.0\n    for item in items[1:]:\n"
    "        total += line_value(item)\n    return round(total, 2)\n"
)
MAIN = (
    "import sys\n\nfrom shop.inventory import total_value\n\nraise SystemExit(main(sys.argv[1:]))\n"
)


def sources(inventory: str = INVENTORY) -> list[tuple[str, str]]:
    return [("shop/__main__.py", MAIN), ("shop/inventory.py", inventory)]


def test_a_total_short_by_the_first_row_names_the_one_loop_that_starts_late():
    skip = left_out(["173.50"], "148.50\n[exit code 0]", GIVEN, sources())
    assert skip == Skip(
        "shop/inventory.py", 10, "    for item in items[1:]:", "first", "items[1:]", "items"
    )
    assert skip.words == (
        "Line 10 of shop/inventory.py, `for item in items[1:]:`, leaves out the first item: "
        "`items[1:]` starts from the second item, where `items` has them all."
    )  # sys.argv[1:] in __main__ is the command's arguments, not an item list


@pytest.mark.parametrize(
    ("loop", "whole"),
    [
        ("for i in range(1, len(items)):\n        item = items[i]", "range(len(items))"),
        ("for n, item in enumerate(items[1:]):", "items"),
        ("for item in list(items)[1:]:", "list(items)"),
    ],
)
def test_a_range_or_an_enumerate_that_starts_late_is_such_a_loop(loop: str, whole: str):
    text = INVENTORY.replace("for item in items[1:]:", loop)
    skip = left_out(["173.50"], "148.50", GIVEN, sources(text))
    assert skip is not None and skip.place == "first" and skip.line == 10
    assert skip.whole == whole


@pytest.mark.parametrize(
    ("loop", "whole"),
    [
        ("for item in items[:-1]:", "items"),
        ("for i in range(len(items) - 1):\n        item = items[i]", "range(len(items))"),
        ("for i in range(0, len(items) - 1):\n        item = items[i]", "range(len(items))"),
    ],
)
def test_a_total_short_by_the_last_row_names_a_loop_that_stops_early(loop: str, whole: str):
    text = INVENTORY.replace("for item in items[1:]:", loop)
    # the last row, C3: 0.75 × 150 = 112.50
    skip = left_out(["173.50"], "61.00", GIVEN, sources(text))
    assert skip is not None and skip.place == "last"
    assert skip.words.endswith(f"stops before the last, where `{whole}` has them all.")
    assert left_out(["173.50"], "61.00", GIVEN, sources()) is None  # [1:] keeps the last row


def test_no_loop_is_named_when_it_is_not_known_which():
    two = INVENTORY + "\n\ndef names(items):\n    return [i for i in items[1:]]\n"
    assert left_out(["173.50"], "148.50", GIVEN, sources(two)) is None  # two such loops
    assert left_out(["173.50"], "209.50", GIVEN, sources()) is None  # a row counted twice
    assert left_out(["173.50"], "137.50", GIVEN, sources()) is None  # the middle row (36.00)
    assert left_out(["173.50"], "170.00", GIVEN, sources()) is None  # no one row
    assert left_out(["ok"], "148.50", GIVEN, sources()) is None  # not a number
    test_file = [("tests/test_inventory.py", INVENTORY)]
    assert left_out(["173.50"], "148.50", GIVEN, test_file) is None  # a test's loop is not it
    assert left_out(["173.50"], "148.50", GIVEN, [("shop/x.py", "def f(:\n")]) is None
    one_row = [("data/stock.csv", "sku,price\nA1,25.00\n")]  # first and last: no place
    assert left_out(["25.00"], "0.00", one_row, sources()) is None


def test_the_loop_left_as_it_was_is_asked_for_alone():
    skip = left_out(["173.50"], "148.50", GIVEN, sources())
    moved = Skip("shop/inventory.py", 12, skip.text, "first", skip.part, skip.whole)  # lines added
    ask = for_skip(moved, skip)
    assert ask == LineAsk(
        "shop/inventory.py",
        12,
        "    for item in items[1:]:",
        kind="skip",
        want="first",
        detail="`items[1:]` starts from the second item, where `items` has them all",
    )
    assert message(ask) == (
        "Line 12 of shop/inventory.py, `for item in items[1:]:`, is where the first item is left "
        "out: `items[1:]` starts from the second item, where `items` has them all.\n\n"
        "First say what that line must loop "
        "over so that no item is left out. Then reply with line 12 as it should be, in a "
        "```python block: one line, not the whole file."
    )
    assert for_skip(skip, None) is None and for_skip(None, skip) is None
    changed = Skip(
        "shop/inventory.py", 10, "    for item in items[2:]:", "first", "items[2:]", "items"
    )
    assert for_skip(changed, skip) is None  # changed to another wrong one: said, not asked


def test_a_loop_s_header_is_one_line_of_code(tmp_path: Path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "inventory.py").write_text(INVENTORY)
    ask = LineAsk("shop/inventory.py", 10, "    for item in items[1:]:", kind="skip")
    got = parsed(
        tmp_path, ask, "It must loop over `items`.\n```python\nfor item in items:\n```", None
    )
    assert got is not None
    [edit] = got.edits
    assert edit.whole == INVENTORY.replace("items[1:]", "items")
    for prose in ("for every item, all of them:", "while the items last", "if so: pass it on"):
        assert parsed(tmp_path, ask, prose, None) is None
    commented = "```python\nfor item in items:  # every item\n```"  # a header's comment
    assert parsed(tmp_path, ask, commented, None) is not None
    body = "```python\nfor item in items:\n    total += line_value(item)\n```"  # with its body
    assert parsed(tmp_path, ask, body, None).edits[0].whole == INVENTORY.replace("[1:]", "")
    other = "```python\nfor item in items:\n    total -= 1\n```"  # a body that is not the file's
    assert parsed(tmp_path, ask, other, None) is None
    # a statement for a header (or a header for a return) is not that line
    assert parsed(tmp_path, ask, "```python\ntotal += 1\n```", None) is None
    ret = LineAsk("shop/inventory.py", 12, "    return round(total, 2)")
    assert parsed(tmp_path, ret, "```python\nfor item in items:\n```", None) is None


SHOP_CSV = "name,price,qty\nwidget,2.50,10\ngadget,12.00,3\ngizmo,0.75,150\n"
SHOP = (
    "import csv\nimport sys\n\n\ndef total(rows):\n    t = 0.0\n    for row in rows[1:]:\n"
    "        t += float(row['price']) * int(row['qty'])\n    return t\n\n\n"
    "with open(sys.argv[1], newline='') as fh:\n"
    "    print(f'{total(list(csv.DictReader(fh))):.2f}')\n"
)


async def test_the_skipping_loop_is_asked_for_alone_at_once_and_again_after_a_copy(
    make_agent, project: Path
):
    """Asked for the whole file, the 1.5B model kept the trace-bug task's `[1:]` three times in
    three; asked for the line, it wrote the loop over every item two times in three. A reply
    that gives the file back anyway (the model's other way) gets the line asked for again."""
    (project / "calc.py").unlink()
    (project / "shop.py").write_text(SHOP)
    (project / "stock.csv").write_text(SHOP_CSV)
    copy = "Fixed.\n\nshop.py\n```python\n" + SHOP + "```\n"
    line = "It must loop over every row: `rows`.\n\n```python\nfor row in rows:\n```\n"
    p = script({"text": copy}, {"text": line})
    config = Config(models={"scripted/m": ModelOverride(workflow="edit")})
    agent = await make_agent(p, config=config)
    request = "`python shop.py stock.csv` should print the total (173.50 in all). Fix it."
    events = await run(agent, request)
    ask = (
        "Line 7 of shop.py, `for row in rows[1:]:`, is where the first item is left out: "
        "`rows[1:]` starts from the second item, where `rows` has them all.\n\nFirst say what "
        "that line must loop over so that no item is left out. Then reply with line 7 as it "
        "should be, in a ```python block: one line, not the whole file."
    )
    first, again = (r.messages[-1] for r in p.requests)
    assert first.role == again.role == "user"  # not begun: what to loop over is said first
    assert first.text().endswith(ask) and again.text().endswith(ask)
    assert first.text().count("starts from the second item") == 1  # said once, as the ask
    assert (project / "shop.py").read_text() == SHOP.replace("rows[1:]", "rows")
    [end] = of(events, E.TURN_END)
    assert "`python shop.py stock.csv` prints, as the request says, 173.50." in end.text


async def test_a_request_that_asks_for_no_change_gets_the_loop_named_not_asked_for(
    make_agent, project: Path
):
    (project / "calc.py").unlink()
    (project / "shop.py").write_text(SHOP)
    (project / "stock.csv").write_text(SHOP_CSV)
    p = script({"text": "The loop starts at the second row."})
    agent = await make_agent(
        p, config=Config(models={"scripted/m": ModelOverride(workflow="edit")})
    )
    await run(agent, "`python shop.py stock.csv` should print the total (173.50 in all). Why not?")
    first = p.requests[0].messages[-1].text()
    assert "leaves out the first item: `rows[1:]` starts from the second item" in first
    assert "Then reply with line 7" not in first and (project / "shop.py").read_text() == SHOP


RING = (
    "class Ring:\n    def __init__(self):\n        self._items = ['a']\n\n"
    "    @property\n    def size(self):\n        return 1\n\n"
    "    def peek(self):\n        return self._items[-1]\n\n    def pop(self):\n        return None\n"
)


def test_a_class_s_methods_alone_replace_theirs():
    """Measured: asked for one line of RingBuffer.peek, the 1.5B model wrote the method whole,
    indented as in the class: as a file it does not parse, and nothing was written."""
    mine = "    def peek(self):\n        return self._items[0]\n"
    assert methods_into(RING, mine) == RING.replace("self._items[-1]", "self._items[0]")
    both = (
        "    @property\n    def size(self):\n        return 2\n\n    def pop(self):\n        pass\n"
    )
    assert methods_into(RING, both) == RING.replace("return 1", "return 2").replace(
        "return None", "pass"
    )
    assert methods_into(RING, "def peek(self):\n    return 0\n") is None  # parses: a file
    assert methods_into(RING, "    def other(self):\n        return 0\n") is None  # not its
    assert methods_into(RING, "    x = 1\n") is None  # not methods alone
    two = RING + "\n\nclass Other:\n    def peek(self):\n        return 0\n"
    assert methods_into(two, mine) is None  # which class: not known


async def test_a_reply_of_a_method_alone_is_written_into_its_class(make_agent, project: Path):
    (project / "calc.py").unlink()
    (project / "ring.py").write_text(RING)
    reply = (
        "Index 0.\n\nring.py\n```python\n    def peek(self):\n        return self._items[0]\n```\n"
    )
    p = script({"text": reply})
    agent = await make_agent(
        p, config=Config(models={"scripted/m": ModelOverride(workflow="edit")})
    )
    await run(agent, "Fix peek in ring.py: it must return the first item.")
    assert (project / "ring.py").read_text() == RING.replace("self._items[-1]", "self._items[0]")


def test_a_hostile_file_s_deep_or_long_loop_is_not_said_and_breaks_nothing():
    """A 500-term sum in a slice parses, and ast.unparse of it raised RecursionError (the turn
    would have ended in a traceback); a loop too long to quote is not named."""
    deep = "def f(a):\n    for x in (" + "+".join(["a"] * 900) + ")[1:]:\n        pass\n"
    assert left_out(["173.50"], "148.50", GIVEN, [("shop/deep.py", deep)]) is None
    long = INVENTORY.replace("items[1:]", "(" + " or ".join(["items"] * 40) + ")[1:]")
    assert left_out(["173.50"], "148.50", GIVEN, sources(long)) is None
    many = [("shop/deep.py", deep), *sources()]  # the one loop that can be said still is
    assert left_out(["173.50"], "148.50", GIVEN, many) is not None


BILLING = (
    '"""Invoice arithmetic."""\n\nTAX_RATE = 0.2\n\n\ndef calc_total(items, tax_rate=TAX_RATE):\n'
    '    """Total, tax included."""\n    return round(sum(p * q for p, q in items) * (1 + tax_rate), 2)\n'
)
RENAME = (
    "Rename the function `calc_total` in billing.py to `compute_total`, and update every caller."
)


def test_a_rename_only_request_keeps_the_definition_as_it_was_but_for_its_name():
    """Measured: the 1.5B model renamed calc_total and dropped its tax_rate parameter; the
    project's tests passed, the task's did not."""
    dropped = BILLING.replace("calc_total(items, tax_rate=TAX_RATE)", "compute_total(items)")
    dropped = dropped.replace("(1 + tax_rate)", "(1 + TAX_RATE)")
    assert keep_renamed(BILLING, dropped, RENAME) == (
        BILLING.replace("calc_total", "compute_total"),
        "compute_total",
    )
    just = BILLING.replace("calc_total", "compute_total")
    assert keep_renamed(BILLING, just, RENAME) == (just, "")  # as asked: nothing to say
    more = RENAME + " Add a `currency` parameter to it."
    assert keep_renamed(BILLING, dropped, more) == (dropped, "")  # more than a rename: the model's
    assert keep_renamed(BILLING, dropped, "Make the total faster.") == (dropped, "")
    assert keep_renamed(BILLING, BILLING, RENAME) == (BILLING, "")  # not renamed at all


async def test_a_rename_that_drops_a_parameter_gets_it_back(make_agent, project: Path):
    (project / "calc.py").unlink()
    (project / "billing.py").write_text(BILLING)
    dropped = BILLING.replace("calc_total(items, tax_rate=TAX_RATE)", "compute_total(items)")
    p = script({"text": "Renamed.\n\nbilling.py\n```python\n" + dropped + "```\n"})
    agent = await make_agent(
        p, config=Config(models={"scripted/m": ModelOverride(workflow="edit")})
    )
    await run(agent, RENAME)
    assert (project / "billing.py").read_text() == BILLING.replace("calc_total", "compute_total")
