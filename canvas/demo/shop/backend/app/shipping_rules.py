"""Shipping rules: a flat rate per country and free shipping above a threshold.

Checkout does not use them yet (no route); the unit tests cover the rules.
"""

from decimal import Decimal

FLAT_RATES = {"DE": Decimal("4.90"), "AT": Decimal("6.90"), "FR": Decimal("7.90")}
FREE_SHIPPING_FROM = Decimal("60.00")


def flat_rate(country: str) -> Decimal:
    return FLAT_RATES.get(country, Decimal("12.00"))


def shipping_cost(country: str, subtotal: Decimal) -> Decimal:
    """The flat rate for the country, or free shipping from FREE_SHIPPING_FROM."""
    if subtotal >= FREE_SHIPPING_FROM:
        return Decimal("0.00")
    return flat_rate(country)
