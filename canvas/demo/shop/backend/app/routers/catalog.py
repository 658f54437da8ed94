"""Browsing the catalog: categories, product pages and search."""

from fastapi import APIRouter, HTTPException

from app.models import PRODUCTS, Product

router = APIRouter(tags=["catalog"])


@router.get("/categories/{category}")
def category_page(category: str) -> list[Product]:
    return [p for p in PRODUCTS.values() if p.category == category]


@router.get("/products/{slug}")
def product_detail(slug: str) -> Product:
    for product in PRODUCTS.values():
        if product.slug == slug:
            return product
    raise HTTPException(404, "no such product")


@router.get("/search")
def search_products(q: str, category: str | None = None, max_price: float | None = None) -> list[Product]:
    words = q.lower().split()
    found = [p for p in PRODUCTS.values() if all(w in p.name.lower() for w in words)]
    if category:
        found = [p for p in found if p.category == category]
    if max_price is not None:
        found = [p for p in found if p.price <= max_price]
    return found


@router.get("/search/autocomplete")
def search_autocomplete(q: str, limit: int = 5) -> list[str]:
    """Product names that start with what the customer typed so far."""
    prefix = q.strip().lower()
    if len(prefix) < 2:
        return []
    names = sorted(p.name for p in PRODUCTS.values() if p.name.lower().startswith(prefix))
    return names[:limit]
