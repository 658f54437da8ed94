"""The shop's data: plain dataclasses kept in memory (the demo has no database)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass
class Product:
    id: int
    slug: str
    name: str
    category: str
    price: Decimal
    stock: int = 0


@dataclass
class CartLine:
    product_id: int
    quantity: int


@dataclass
class Cart:
    user_id: int
    lines: list[CartLine] = field(default_factory=list)


@dataclass
class OrderLine:
    product_id: int
    name: str
    quantity: int
    unit_price: Decimal


@dataclass
class Order:
    id: int
    user_id: int
    lines: list[OrderLine]
    country: str = "DE"
    status: str = "placed"

    @property
    def subtotal(self) -> Decimal:
        return sum((line.unit_price * line.quantity for line in self.lines), Decimal("0"))


@dataclass
class Subscriber:
    email: str
    token: str
    confirmed: bool = False


PRODUCTS: dict[int, Product] = {
    1: Product(1, "linen-shirt", "Linen shirt", "shirts", Decimal("49.00"), stock=12),
    2: Product(2, "wool-socks", "Wool socks", "socks", Decimal("12.50"), stock=3),
    3: Product(3, "canvas-tote", "Canvas tote bag", "bags", Decimal("19.90"), stock=40),
    4: Product(4, "linen-trousers", "Linen trousers", "trousers", Decimal("69.00"), stock=0),
}
