"""Plain-text tables."""


def format_table(rows, header=None):
    """Format rows (lists of values) as a table with columns padded to equal width."""
    rows = [[str(v) for v in row] for row in rows]
    if header is not None:
        rows = [[str(h) for h in header]] + rows
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append(" | ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        if n == 0 and header is not None:
            lines.append("-+-".join("-" * w for w in widths))
    return "\n".join(lines)
