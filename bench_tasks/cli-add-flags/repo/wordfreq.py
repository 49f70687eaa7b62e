"""Count words in a text file."""

import argparse
import re
import sys
from collections import Counter


def count_words(text):
    return Counter(re.findall(r"[A-Za-z']+", text))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path")
    args = parser.parse_args(argv)
    with open(args.path, encoding="utf-8") as fh:
        counts = count_words(fh.read())
    for word, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n} {word}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
