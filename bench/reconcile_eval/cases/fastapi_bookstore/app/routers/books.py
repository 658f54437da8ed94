from typing import Literal

from fastapi import APIRouter, Depends, HTTPException, Query
from sqlalchemy.orm import Session

from app.config import get_settings
from app.database import get_db
from app.schemas.book import BookDetail, BookPage, BookSummary
from app.services import catalog

router = APIRouter(prefix="/books", tags=["catalog"])
settings = get_settings()


@router.get("", response_model=BookPage)
def browse_books(
    page: int = Query(1, ge=1),
    size: int = Query(settings.default_page_size, ge=1, le=settings.max_page_size),
    sort: Literal["title", "newest", "price_asc", "price_desc"] = "title",
    db: Session = Depends(get_db),
):
    items, total = catalog.list_books(db, page, size, sort)
    return BookPage(items=items, page=page, size=size, total=total)


@router.get("/search", response_model=list[BookSummary])
def search_books(q: str = Query(..., min_length=2, max_length=100), db: Session = Depends(get_db)):
    return catalog.search_books(db, q)


@router.get("/{book_id}", response_model=BookDetail)
def get_book(book_id: int, db: Session = Depends(get_db)):
    book = catalog.get_book(db, book_id)
    if book is None:
        raise HTTPException(404, "Book not found")
    return BookDetail(
        id=book.id,
        title=book.title,
        author=book.author,
        genre=book.genre,
        price_cents=book.price_cents,
        recommended_retail_price_cents=book.recommended_retail_price_cents,
        cover_url=book.cover_url,
        isbn=book.isbn,
        description=book.description,
        published_on=book.published_on,
        in_stock=book.stock > 0,
    )
