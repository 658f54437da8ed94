from datetime import date, datetime

from pydantic import BaseModel, ConfigDict, Field


class AuthorOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str


class BookSummary(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    title: str
    author: AuthorOut
    genre: str
    price_cents: int
    recommended_retail_price_cents: int | None = None
    cover_url: str | None = None


class BookDetail(BookSummary):
    isbn: str
    description: str
    published_on: date | None
    in_stock: bool


class BookPage(BaseModel):
    items: list[BookSummary]
    page: int
    size: int
    total: int


class BookIn(BaseModel):
    title: str = Field(min_length=1, max_length=255)
    isbn: str = Field(pattern=r"^(97[89])?\d{9}[\dX]$")
    author_id: int
    publisher_id: int | None = None
    genre: str = "general"
    description: str = ""
    cover_url: str | None = None
    price_cents: int = Field(gt=0)
    recommended_retail_price_cents: int | None = Field(default=None, gt=0)
    stock: int = Field(default=0, ge=0)
    published_on: date | None = None


class ReviewIn(BaseModel):
    rating: int = Field(ge=1, le=5)
    body: str = Field(default="", max_length=5000)


class ReviewOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    book_id: int
    user_id: int
    rating: int
    body: str
    created_at: datetime


class LowStockItem(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    title: str
    isbn: str
    stock: int
