from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from app.models.book import Author, Book

SORTS = {
    "title": Book.title.asc(),
    "newest": Book.published_on.desc(),
    "price_asc": Book.price_cents.asc(),
    "price_desc": Book.price_cents.desc(),
}


def list_books(db: Session, page: int, size: int, sort: str = "title") -> tuple[list[Book], int]:
    total = db.scalar(select(func.count(Book.id))) or 0
    stmt = (
        select(Book)
        .order_by(SORTS.get(sort, SORTS["title"]), Book.id)
        .offset((page - 1) * size)
        .limit(size)
    )
    return list(db.scalars(stmt).unique()), total


def search_books(db: Session, q: str, limit: int = 50) -> list[Book]:
    """Case-insensitive match on the title or the author's name."""
    pattern = f"%{q.strip().lower()}%"
    stmt = (
        select(Book)
        .join(Author)
        .where(or_(func.lower(Book.title).like(pattern), func.lower(Author.name).like(pattern)))
        .order_by(Book.title)
        .limit(limit)
    )
    return list(db.scalars(stmt).unique())


def get_book(db: Session, book_id: int) -> Book | None:
    return db.get(Book, book_id)
