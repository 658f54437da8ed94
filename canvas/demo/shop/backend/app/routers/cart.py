"""The shopping cart: add, change quantities, remove."""

from fastapi import APIRouter, HTTPException

from app.models import PRODUCTS, Cart, CartLine

router = APIRouter(prefix="/cart", tags=["cart"])
CARTS: dict[int, Cart] = {}


def cart_for(user_id: int) -> Cart:
    return CARTS.setdefault(user_id, Cart(user_id))


@router.get("")
def show_cart(user_id: int) -> Cart:
    return cart_for(user_id)


@router.post("/lines")
def add_to_cart(user_id: int, product_id: int, quantity: int = 1) -> Cart:
    if product_id not in PRODUCTS:
        raise HTTPException(404, "no such product")
    cart = cart_for(user_id)
    for line in cart.lines:
        if line.product_id == product_id:
            line.quantity += quantity
            return cart
    cart.lines.append(CartLine(product_id, quantity))
    return cart


@router.patch("/lines/{product_id}")
def change_quantity(user_id: int, product_id: int, quantity: int) -> Cart:
    cart = cart_for(user_id)
    cart.lines = [line for line in cart.lines if line.product_id != product_id or quantity > 0]
    for line in cart.lines:
        if line.product_id == product_id:
            line.quantity = quantity
    return cart
