from datetime import datetime, timezone

from fastapi import APIRouter, Depends, HTTPException, Response, status
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.database import get_db
from app.deps import get_current_user
from app.models.book import Book
from app.models.user import ReadingListEntry, User
from app.schemas.user import ProfileUpdate, ReadingListAdd, ReadingListItemOut, UserOut

router = APIRouter(prefix="/users", tags=["users"])


@router.get("/me", response_model=UserOut)
def read_me(user: User = Depends(get_current_user)):
    return user


@router.patch("/me", response_model=UserOut)
def update_me(body: ProfileUpdate, user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    if body.display_name is not None:
        user.display_name = body.display_name.strip()
    db.commit()
    return user


@router.delete("/me", status_code=status.HTTP_204_NO_CONTENT)
def close_account(user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    # Soft close only: the account can no longer log in.
    # TODO(gdpr): erase reviews, addresses and order PII once legal signs off on retention.
    user.is_active = False
    user.deactivated_at = datetime.now(timezone.utc)
    db.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def _entry_out(entry: ReadingListEntry) -> ReadingListItemOut:
    return ReadingListItemOut(
        book_id=entry.book_id,
        title=entry.book.title,
        author=entry.book.author.name,
        note=entry.note,
        added_at=entry.added_at,
    )


@router.get("/me/reading-list", response_model=list[ReadingListItemOut])
def get_reading_list(user: User = Depends(get_current_user)):
    return [_entry_out(e) for e in user.reading_list]


@router.post("/me/reading-list", response_model=ReadingListItemOut, status_code=status.HTTP_201_CREATED)
def add_to_reading_list(body: ReadingListAdd, user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    if db.get(Book, body.book_id) is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Book not found")
    entry = ReadingListEntry(book_id=body.book_id, note=body.note)
    user.reading_list.append(entry)
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        raise HTTPException(status.HTTP_409_CONFLICT, "Already on your reading list")
    db.refresh(entry)
    return _entry_out(entry)


@router.delete("/me/reading-list/{book_id}", status_code=status.HTTP_204_NO_CONTENT)
def remove_from_reading_list(book_id: int, user: User = Depends(get_current_user), db: Session = Depends(get_db)):
    entry = db.scalar(
        select(ReadingListEntry).where(ReadingListEntry.user_id == user.id, ReadingListEntry.book_id == book_id)
    )
    if entry is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Not on your reading list")
    user.reading_list.remove(entry)  # delete-orphan removes the row
    db.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
