"""Inventory arithmetic."""


def line_value(item):
    return item.unit_price * item.quantity


def in_stock(items):
    """Items with at least one unit."""
    return [item for item in items if item.quantity > 0]


def total_value(items):
    """Total value of the stock."""
    total = 0.0
    for item in in_stock(items):
        total += line_value(item)
    return round(total, 2)
