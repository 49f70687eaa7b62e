import subprocess
import sys
from pathlib import Path

from shop.inventory import in_stock, total_value
from shop.parser import Item

ROOT = Path(__file__).resolve().parents[1]


def test_total_value_counts_every_item():
    items = [Item("a", "a", 1.0, 2), Item("b", "b", 3.0, 1)]
    assert total_value(items) == 5.0


def test_out_of_stock_items_are_still_excluded():
    items = [Item("a", "a", 1.0, 0), Item("b", "b", 3.0, 1)]
    assert in_stock(items) == [items[1]]
    assert total_value(items) == 3.0


def test_cli_prints_the_total():
    out = subprocess.run([sys.executable, "-m", "shop", "data/stock.csv"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "173.50"
