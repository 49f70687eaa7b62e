"""Read stock CSV files into Item records."""

import csv
from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    name: str
    unit_price: float
    quantity: int


def parse_row(row):
    return Item(
        sku=row["sku"].strip(),
        name=row["name"].strip(),
        unit_price=float(row["unit_price"]),
        quantity=int(row["quantity"]),
    )


def read_items(path):
    with open(path, newline="") as fh:
        return [parse_row(row) for row in csv.DictReader(fh)]
