from decimal import Decimal

from app.shipping_rules import flat_rate, shipping_cost


def test_flat_rate_by_country():
    assert flat_rate("DE") == Decimal("4.90")
    assert flat_rate("US") == Decimal("12.00")


def test_free_shipping_from_sixty_euros():
    assert shipping_cost("DE", Decimal("60.00")) == Decimal("0.00")
    assert shipping_cost("DE", Decimal("59.99")) == Decimal("4.90")
