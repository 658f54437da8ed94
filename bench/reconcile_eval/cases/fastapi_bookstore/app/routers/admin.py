from datetime import datetime

from fastapi import APIRouter, Depends, HTTPException, Response, status
from sqlalchemy.orm import Session

from app.config import get_settings
from app.database import get_db
from app.deps import require_admin
from app.models.book import Book
from app.models.order import Order
from app.schemas.book import BookDetail, BookIn, LowStockItem
from app.schemas.order import OrderOut, ShipOrderIn
from app.services.export import export_orders_csv
from app.services.inventory import low_stock_books
from app.services.orders import OrderError, mark_shipped

router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Depends(require_admin)])


def _detail(book: Book) -> BookDetail:
    return BookDetail.model_validate(
        {**{c: getattr(book, c) for c in BookIn.model_fields if hasattr(book, c)},
         "id": book.id, "author": book.author, "in_stock": book.stock > 0}
    )


@router.post("/books", response_model=BookDetail, status_code=status.HTTP_201_CREATED)
def create_book(body: BookIn, db: Session = Depends(get_db)):
    book = Book(**body.model_dump())
    db.add(book)
    db.commit()
    db.refresh(book)
    return _detail(book)


@router.put("/books/{book_id}", response_model=BookDetail)
def update_book(book_id: int, body: BookIn, db: Session = Depends(get_db)):
    book = db.get(Book, book_id)
    if book is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Book not found")
    for field, value in body.model_dump().items():
        setattr(book, field, value)
    db.commit()
    return _detail(book)


@router.delete("/books/{book_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_book(book_id: int, db: Session = Depends(get_db)):
    book = db.get(Book, book_id)
    if book is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Book not found")
    db.delete(book)
    db.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/orders/export")
def export_orders(since: datetime | None = None, until: datetime | None = None, db: Session = Depends(get_db)):
    body = export_orders_csv(db, since, until)
    filename = f"orders-{datetime.now():%Y%m%d}.csv"
    return Response(
        content=body,
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.post("/orders/{order_id}/ship", response_model=OrderOut)
def ship_order(order_id: int, body: ShipOrderIn, db: Session = Depends(get_db)):
    order = db.get(Order, order_id)
    if order is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Order not found")
    try:
        return mark_shipped(db, order, f"{body.carrier}:{body.tracking_number}")
    except OrderError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc))


@router.get("/inventory/low-stock", response_model=list[LowStockItem])
def low_stock_report(threshold: int | None = None, db: Session = Depends(get_db)):
    return low_stock_books(db, threshold if threshold is not None else get_settings().low_stock_threshold)
