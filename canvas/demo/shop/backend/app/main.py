"""The FastAPI application: one router per area of the shop."""

from fastapi import FastAPI

from app.routers import cart, catalog, discounts, newsletter, wishlist

app = FastAPI(title="Shop")
app.include_router(catalog.router, prefix="/api")
app.include_router(cart.router, prefix="/api")
app.include_router(wishlist.router, prefix="/api")
app.include_router(newsletter.router, prefix="/api")
app.include_router(discounts.router, prefix="/api")
