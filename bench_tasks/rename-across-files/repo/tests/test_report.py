from report import render


def test_render_has_total():
    assert render("Ada", [(10.0, 2)]).endswith("Total: 24.00")
