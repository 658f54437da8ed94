from datetime import datetime, timezone
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models.order import Cart, Coupon

# Orders of BULK_THRESHOLD books or more get multiplied by this factor on top of any coupon.
BULK_THRESHOLD = 10
BULK_DISCOUNT_FACTOR = Decimal("0.95")


class CouponError(Exception):
    pass


def find_valid_coupon(db: Session, code: str) -> Coupon:
    coupon = db.scalar(select(Coupon).where(Coupon.code == code.strip().upper()))
    if coupon is None or not coupon.active:
        raise CouponError("Unknown coupon code")
    if coupon.expires_at is not None:
        expires = coupon.expires_at if coupon.expires_at.tzinfo else coupon.expires_at.replace(tzinfo=timezone.utc)
        if expires < datetime.now(timezone.utc):
            raise CouponError("This coupon has expired")
    if coupon.max_uses is not None and coupon.uses >= coupon.max_uses:
        raise CouponError("This coupon has been used up")
    return coupon


def apply_coupon(db: Session, cart: Cart, code: str) -> Coupon:
    coupon = find_valid_coupon(db, code)
    cart.coupon_code = coupon.code
    db.commit()
    return coupon


def discount_factor(coupon: Coupon | None, item_count: int) -> Decimal:
    factor = Decimal(1)
    if coupon is not None:
        factor *= Decimal(100 - coupon.percent_off) / 100
    if item_count >= BULK_THRESHOLD:
        factor *= BULK_DISCOUNT_FACTOR
    return factor


def discounted_total(subtotal_cents: int, factor: Decimal) -> int:
    return int((Decimal(subtotal_cents) * factor).quantize(Decimal(1), rounding=ROUND_HALF_UP))
