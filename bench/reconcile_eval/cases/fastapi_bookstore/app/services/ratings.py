from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.models.book import Review


def average_rating(db: Session, book_id: int) -> float | None:
    """Mean star rating of a book, rounded to one decimal; None when unrated."""
    avg = db.scalar(select(func.avg(Review.rating)).where(Review.book_id == book_id))
    return round(float(avg), 1) if avg is not None else None


def rating_counts(db: Session, book_id: int) -> dict[int, int]:
    rows = db.execute(
        select(Review.rating, func.count(Review.id)).where(Review.book_id == book_id).group_by(Review.rating)
    ).all()
    counts = {star: 0 for star in range(1, 6)}
    counts.update({rating: n for rating, n in rows})
    return counts
