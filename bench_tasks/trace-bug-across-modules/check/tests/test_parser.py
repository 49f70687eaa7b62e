from shop.parser import parse_row


def test_parse_row():
    item = parse_row({"sku": " A1", "name": "w ", "unit_price": "2.5", "quantity": "4"})
    assert (item.sku, item.name, item.unit_price, item.quantity) == ("A1", "w", 2.5, 4)
