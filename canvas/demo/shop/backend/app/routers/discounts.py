"""Discount codes entered at checkout."""

from decimal import Decimal

from fastapi import APIRouter, HTTPException

router = APIRouter(prefix="/checkout", tags=["checkout"])
DISCOUNT_CODES = {"WELCOME10": Decimal("0.10"), "SUMMER20": Decimal("0.20")}


@router.post("/discount-code")
def apply_discount_code(code: str, subtotal: Decimal) -> dict[str, Decimal]:
    rate = DISCOUNT_CODES.get(code.strip().upper())
    if rate is None:
        raise HTTPException(422, "this discount code is not valid")
    discount = (subtotal * rate).quantize(Decimal("0.01"))
    return {"discount": discount, "total": subtotal - discount}
