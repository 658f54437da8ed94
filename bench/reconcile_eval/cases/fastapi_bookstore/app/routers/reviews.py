from fastapi import APIRouter, Depends, HTTPException, status
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.database import get_db
from app.deps import get_current_user
from app.models.book import Book, Review
from app.models.user import User
from app.schemas.book import ReviewIn, ReviewOut

router = APIRouter(tags=["reviews"])


@router.get("/books/{book_id}/reviews", response_model=list[ReviewOut])
def list_reviews(book_id: int, db: Session = Depends(get_db)):
    stmt = select(Review).where(Review.book_id == book_id).order_by(Review.created_at.desc())
    return list(db.scalars(stmt))


@router.post("/books/{book_id}/reviews", response_model=ReviewOut, status_code=status.HTTP_201_CREATED)
def create_review(
    book_id: int,
    body: ReviewIn,
    user: User = Depends(get_current_user),
    db: Session = Depends(get_db),
):
    if db.get(Book, book_id) is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Book not found")
    duplicate = db.scalar(select(Review).where(Review.book_id == book_id, Review.user_id == user.id))
    if duplicate is not None:
        raise HTTPException(status.HTTP_409_CONFLICT, "You already reviewed this book")
    review = Review(book_id=book_id, user_id=user.id, rating=body.rating, body=body.body.strip())
    db.add(review)
    db.commit()
    db.refresh(review)
    return review
