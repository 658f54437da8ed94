"""The wishlist: products a signed-in customer saves for later."""

from fastapi import APIRouter, HTTPException

from app.models import PRODUCTS, Product

router = APIRouter(prefix="/wishlist", tags=["wishlist"])
WISHLISTS: dict[int, list[int]] = {}


@router.get("")
def get_wishlist(user_id: int) -> list[Product]:
    return [PRODUCTS[i] for i in WISHLISTS.get(user_id, []) if i in PRODUCTS]


@router.post("/{product_id}")
def add_to_wishlist(user_id: int, product_id: int) -> list[int]:
    if product_id not in PRODUCTS:
        raise HTTPException(404, "no such product")
    saved = WISHLISTS.setdefault(user_id, [])
    if product_id not in saved:
        saved.append(product_id)
    return saved


@router.delete("/{product_id}")
def remove_from_wishlist(user_id: int, product_id: int) -> list[int]:
    saved = WISHLISTS.setdefault(user_id, [])
    if product_id in saved:
        saved.remove(product_id)
    return saved
