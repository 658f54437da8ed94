from datetime import datetime, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import get_settings
from app.models.book import Book
from app.models.order import Cart, Coupon, Order, OrderItem, OrderStatus
from app.models.user import User
from app.services.cart_service import cart_totals
from app.services.payments import PaymentMethod, charge


class OrderError(Exception):
    pass


def place_order(
    db: Session,
    user: User,
    cart: Cart,
    shipping_address: str,
    payment_method: PaymentMethod,
    payment_token: str | None,
    gift_wrap: bool = False,
    gift_message: str | None = None,
) -> Order:
    if not cart.items:
        raise OrderError("Your cart is empty")
    totals = cart_totals(db, cart)
    total = totals["total_cents"]
    if gift_wrap:
        total += get_settings().gift_wrap_fee_cents

    for item in cart.items:
        book = db.get(Book, item.book_id, with_for_update=True)
        if book.stock < item.quantity:
            raise OrderError(f"'{book.title}' sold out while you were shopping")
        book.stock -= item.quantity

    reference = charge(payment_method, total, payment_token)
    order = Order(
        user_id=user.id,
        status=OrderStatus.PAID,
        subtotal_cents=totals["subtotal_cents"],
        discount_cents=totals["discount_cents"],
        total_cents=total,
        coupon_code=totals["coupon_code"],
        payment_method=payment_method,
        payment_reference=reference,
        gift_wrap=gift_wrap,
        gift_message=gift_message if gift_wrap else None,
        shipping_address=shipping_address,
        items=[
            OrderItem(book_id=i.book_id, title=i.book.title, unit_price_cents=i.book.price_cents, quantity=i.quantity)
            for i in cart.items
        ],
    )
    if order.coupon_code:
        coupon = db.scalar(select(Coupon).where(Coupon.code == order.coupon_code))
        coupon.uses += 1
    db.add(order)
    cart.items.clear()
    cart.coupon_code = None
    db.commit()
    db.refresh(order)
    return order


def list_orders(db: Session, user: User) -> list[Order]:
    return list(db.scalars(select(Order).where(Order.user_id == user.id).order_by(Order.created_at.desc())))


def cancel_order(db: Session, order: Order, user: User) -> Order:
    """Cancel a paid order that has not shipped yet and put the books back in stock.

    The refund itself is done by hand in the acquirer's dashboard for now.
    """
    if order.user_id != user.id and not user.is_admin:
        raise OrderError("Not your order")
    if order.status not in (OrderStatus.PENDING, OrderStatus.PAID):
        raise OrderError(f"An order that is {order.status.value} cannot be cancelled")
    for item in order.items:
        book = db.get(Book, item.book_id)
        if book is not None:
            book.stock += item.quantity
    order.status = OrderStatus.CANCELLED
    db.commit()
    return order


def mark_shipped(db: Session, order: Order, tracking_number: str) -> Order:
    if order.status != OrderStatus.PAID:
        raise OrderError("Only paid orders can ship")
    order.status = OrderStatus.SHIPPED
    order.tracking_number = tracking_number
    order.shipped_at = datetime.now(timezone.utc)
    db.commit()
    return order
