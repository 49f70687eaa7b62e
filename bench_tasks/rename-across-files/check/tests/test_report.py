import billing
import report
from report import render


def test_render_has_total():
    assert render("Ada", [(10.0, 2)]).endswith("Total: 24.00")


def test_new_name_exists_and_works():
    assert billing.compute_total([(5.0, 1)], tax_rate=0.0) == 5.0


def test_old_name_is_gone_everywhere():
    assert not hasattr(billing, "calc_total")
    assert not hasattr(report, "calc_total")
    assert report.compute_total is billing.compute_total
