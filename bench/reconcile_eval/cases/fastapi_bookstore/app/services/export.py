import csv
import io
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from app.models.order import Order
from app.models.user import User

CSV_COLUMNS = [
    "order_id", "created_at", "customer_email", "status", "items",
    "subtotal", "discount", "total", "coupon", "payment_method",
]


def _money(cents: int) -> str:
    return f"{cents / 100:.2f}"


def export_orders_csv(db: Session, since: datetime | None = None, until: datetime | None = None) -> str:
    """All orders in a date window as CSV, for accounting.

    The old shop rendered monthly statements as PDF; accounting asked for CSV
    only, so there is no PDF path here any more.
    """
    stmt = (
        select(Order, User.email)
        .join(User, User.id == Order.user_id)
        .options(selectinload(Order.items))
        .order_by(Order.created_at)
    )
    if since is not None:
        stmt = stmt.where(Order.created_at >= since)
    if until is not None:
        stmt = stmt.where(Order.created_at < until)

    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(CSV_COLUMNS)
    for order, email in db.execute(stmt):
        writer.writerow([
            order.id,
            order.created_at.isoformat(),
            email,
            order.status.value,
            sum(i.quantity for i in order.items),
            _money(order.subtotal_cents),
            _money(order.discount_cents),
            _money(order.total_cents),
            order.coupon_code or "",
            order.payment_method,
        ])
    return buf.getvalue()
