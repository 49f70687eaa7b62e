"""Plain-text tables."""


def _pad(cell, width, how):
    if how == "r":
        return cell.rjust(width)
    if how == "c":
        left = (width - len(cell)) // 2
        return (" " * left + cell).ljust(width)
    return cell.ljust(width)


def format_table(rows, header=None, align=None):
    """Format rows (lists of values) as a table with columns padded to equal width."""
    rows = [[str(v) for v in row] for row in rows]
    if header is not None:
        rows = [[str(h) for h in header]] + rows
    if not rows:
        return ""
    ncols = len(rows[0])
    if align is None:
        align = "l" * ncols
    if len(align) != ncols or set(align) - set("lrc"):
        raise ValueError(f"align must be {ncols} of l, r, c")
    widths = [max(len(row[i]) for row in rows) for i in range(ncols)]
    lines = []
    for n, row in enumerate(rows):
        cells = [_pad(cell, w, a) for cell, w, a in zip(row, widths, align)]
        lines.append(" | ".join(cells).rstrip())
        if n == 0 and header is not None:
            lines.append("-+-".join("-" * w for w in widths))
    return "\n".join(lines)
