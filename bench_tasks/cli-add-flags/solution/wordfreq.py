"""Count words in a text file."""

import argparse
import re
import sys
from collections import Counter


def count_words(text, ignore_case=False):
    words = re.findall(r"[A-Za-z']+", text)
    if ignore_case:
        words = [w.lower() for w in words]
    return Counter(words)


def positive_int(value):
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be positive: {value}")
    return n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path")
    parser.add_argument("--top", type=positive_int)
    parser.add_argument("--ignore-case", action="store_true")
    args = parser.parse_args(argv)
    with open(args.path, encoding="utf-8") as fh:
        counts = count_words(fh.read(), args.ignore_case)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if args.top:
        ranked = ranked[: args.top]
    for word, n in ranked:
        print(f"{n} {word}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
