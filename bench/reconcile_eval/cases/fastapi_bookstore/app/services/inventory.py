from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models.book import Book


def low_stock_books(db: Session, threshold: int) -> list[Book]:
    stmt = select(Book).where(Book.stock <= threshold).order_by(Book.stock, Book.title)
    return list(db.scalars(stmt).unique())


def restock(db: Session, book: Book, quantity: int) -> Book:
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    book.stock += quantity
    db.commit()
    return book
