from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.models.order import OrderStatus


class CartItemIn(BaseModel):
    book_id: int
    quantity: int = Field(default=1, ge=1, le=50)


class CartItemUpdate(BaseModel):
    quantity: int = Field(ge=0, le=50)


class CouponIn(BaseModel):
    code: str = Field(min_length=3, max_length=32)


class CartLineOut(BaseModel):
    id: int
    book_id: int
    title: str
    unit_price_cents: int
    quantity: int
    line_total_cents: int


class CartOut(BaseModel):
    items: list[CartLineOut]
    coupon_code: str | None
    subtotal_cents: int
    discount_cents: int
    total_cents: int


class CheckoutIn(BaseModel):
    shipping_address: str = Field(min_length=10, max_length=500)
    payment_method: Literal["card", "invoice"] = "card"
    payment_token: str | None = None
    gift_wrap: bool = False
    gift_message: str | None = Field(default=None, max_length=300)


class OrderItemOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    book_id: int
    title: str
    unit_price_cents: int
    quantity: int


class OrderOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    status: OrderStatus
    subtotal_cents: int
    discount_cents: int
    total_cents: int
    coupon_code: str | None
    gift_wrap: bool
    created_at: datetime
    items: list[OrderItemOut]


class ShipOrderIn(BaseModel):
    carrier: str = Field(default="royal-mail", max_length=30)
    tracking_number: str = Field(min_length=6, max_length=40)
