from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models.book import Book
from app.models.order import Cart, CartItem
from app.models.user import User
from app.services.coupons import CouponError, discount_factor, discounted_total, find_valid_coupon


class CartError(Exception):
    pass


def get_or_create_cart(db: Session, user: User) -> Cart:
    cart = db.scalar(select(Cart).where(Cart.user_id == user.id))
    if cart is None:
        cart = Cart(user_id=user.id)
        db.add(cart)
        db.commit()
        db.refresh(cart)
    return cart


def add_item(db: Session, cart: Cart, book_id: int, quantity: int) -> CartItem:
    book = db.get(Book, book_id)
    if book is None:
        raise CartError("Book not found")
    existing = next((i for i in cart.items if i.book_id == book_id), None)
    wanted = quantity + (existing.quantity if existing else 0)
    if wanted > book.stock:
        raise CartError(f"Only {book.stock} copies of '{book.title}' left")
    if existing:
        existing.quantity = wanted
        item = existing
    else:
        item = CartItem(cart=cart, book_id=book_id, quantity=quantity)
        db.add(item)
    db.commit()
    return item


def update_quantity(db: Session, cart: Cart, item_id: int, quantity: int) -> None:
    item = next((i for i in cart.items if i.id == item_id), None)
    if item is None:
        raise CartError("Item not in cart")
    if quantity == 0:
        cart.items.remove(item)  # delete-orphan removes the row
    elif quantity > item.book.stock:
        raise CartError(f"Only {item.book.stock} copies left")
    else:
        item.quantity = quantity
    db.commit()


def cart_totals(db: Session, cart: Cart) -> dict:
    lines = [
        {
            "id": i.id,
            "book_id": i.book_id,
            "title": i.book.title,
            "unit_price_cents": i.book.price_cents,
            "quantity": i.quantity,
            "line_total_cents": i.book.price_cents * i.quantity,
        }
        for i in cart.items
    ]
    subtotal = sum(line["line_total_cents"] for line in lines)
    coupon = None
    if cart.coupon_code:
        try:
            coupon = find_valid_coupon(db, cart.coupon_code)
        except CouponError:
            cart.coupon_code = None  # expired since it was applied
    total = discounted_total(subtotal, discount_factor(coupon, sum(i.quantity for i in cart.items)))
    return {
        "items": lines,
        "coupon_code": cart.coupon_code,
        "subtotal_cents": subtotal,
        "discount_cents": subtotal - total,
        "total_cents": total,
    }
