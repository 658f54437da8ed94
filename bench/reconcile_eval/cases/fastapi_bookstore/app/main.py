from fastapi import FastAPI

from app.config import get_settings
from app.database import Base, engine
from app.routers import admin, auth, banners, books, cart, orders, reviews, users


def create_app() -> FastAPI:
    settings = get_settings()
    app = FastAPI(title=settings.app_name, version="0.4.0")

    app.include_router(auth.router)
    app.include_router(users.router)
    app.include_router(books.router)
    app.include_router(reviews.router)
    app.include_router(cart.router)
    app.include_router(orders.router)
    app.include_router(admin.router)
    app.include_router(banners.router)

    @app.get("/health", tags=["ops"])
    def health() -> dict[str, str]:
        return {"status": "ok"}

    return app


Base.metadata.create_all(bind=engine)
app = create_app()
