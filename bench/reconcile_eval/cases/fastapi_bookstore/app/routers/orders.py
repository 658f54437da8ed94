from fastapi import APIRouter, Depends, HTTPException, status
from sqlalchemy.orm import Session

from app.database import get_db
from app.deps import get_current_user
from app.models.order import Order
from app.models.user import User
from app.schemas.order import CheckoutIn, OrderOut
from app.services import cart_service
from app.services.orders import OrderError, list_orders, place_order
from app.services.payments import PaymentDeclined

router = APIRouter(prefix="/orders", tags=["orders"])


@router.post("/checkout", response_model=OrderOut, status_code=status.HTTP_201_CREATED)
def checkout(body: CheckoutIn, user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    cart = cart_service.get_or_create_cart(db, user)
    try:
        order = place_order(
            db,
            user,
            cart,
            shipping_address=body.shipping_address,
            payment_method=body.payment_method,
            payment_token=body.payment_token,
            gift_wrap=body.gift_wrap,
            gift_message=body.gift_message,
        )
    except OrderError as exc:
        db.rollback()
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(exc))
    except PaymentDeclined as exc:
        db.rollback()
        raise HTTPException(status.HTTP_402_PAYMENT_REQUIRED, str(exc))
    return order


@router.get("", response_model=list[OrderOut])
def order_history(user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    return list_orders(db, user)


@router.get("/{order_id}", response_model=OrderOut)
def get_order(order_id: int, user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    order = db.get(Order, order_id)
    if order is None or (order.user_id != user.id and not user.is_admin):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Order not found")
    return order
