import sys

from shop.inventory import total_value
from shop.parser import read_items


def main(argv):
    items = read_items(argv[0])
    print(f"{total_value(items):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
