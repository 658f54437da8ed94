from fastapi import APIRouter, Depends, HTTPException, status
from sqlalchemy.orm import Session

from app.database import get_db
from app.deps import get_current_user
from app.models.user import User
from app.schemas.order import CartItemIn, CartItemUpdate, CartOut, CouponIn
from app.services import cart_service
from app.services.coupons import CouponError, apply_coupon

router = APIRouter(prefix="/cart", tags=["cart"])


@router.get("", response_model=CartOut)
def view_cart(user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    cart = cart_service.get_or_create_cart(db, user)
    return cart_service.cart_totals(db, cart)


@router.post("/items", response_model=CartOut, status_code=status.HTTP_201_CREATED)
def add_to_cart(body: CartItemIn, user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    cart = cart_service.get_or_create_cart(db, user)
    try:
        cart_service.add_item(db, cart, body.book_id, body.quantity)
    except cart_service.CartError as exc:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(exc))
    return cart_service.cart_totals(db, cart)


@router.patch("/items/{item_id}", response_model=CartOut)
def change_quantity(
    item_id: int, body: CartItemUpdate, user: User = Depends(get_current_user), db: Session = Depends(get_db)
):
    cart = cart_service.get_or_create_cart(db, user)
    try:
        cart_service.update_quantity(db, cart, item_id, body.quantity)
    except cart_service.CartError as exc:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(exc))
    return cart_service.cart_totals(db, cart)


@router.post("/coupon", response_model=CartOut)
def use_coupon(body: CouponIn, user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    cart = cart_service.get_or_create_cart(db, user)
    try:
        apply_coupon(db, cart, body.code)
    except CouponError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_ENTITY, str(exc))
    return cart_service.cart_totals(db, cart)


@router.delete("/coupon", response_model=CartOut)
def remove_coupon(user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    cart = cart_service.get_or_create_cart(db, user)
    cart.coupon_code = None
    db.commit()
    return cart_service.cart_totals(db, cart)
