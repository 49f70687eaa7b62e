"""Plain-text invoice report."""

from billing import calc_total


def render(customer, items):
    lines = [f"Invoice for {customer}"]
    for price, qty in items:
        lines.append(f"  {qty} x {price:.2f}")
    lines.append(f"Total: {calc_total(items):.2f}")
    return "\n".join(lines)
