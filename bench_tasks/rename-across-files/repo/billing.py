"""Invoice arithmetic."""

TAX_RATE = 0.2


def calc_total(items, tax_rate=TAX_RATE):
    """Total of (price, quantity) pairs, tax included, rounded to cents."""
    subtotal = sum(price * qty for price, qty in items)
    return round(subtotal * (1 + tax_rate), 2)
