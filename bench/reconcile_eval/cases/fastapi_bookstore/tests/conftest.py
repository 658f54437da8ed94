import os

os.environ.setdefault("BOOKSTORE_DATABASE_URL", "sqlite://")
os.environ.setdefault("BOOKSTORE_SMTP_HOST", "disabled")

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker
from sqlalchemy.pool import StaticPool

from app.database import Base, get_db
from app.main import app
from app.models.book import Author, Book
from app.security import create_access_token
from app.services import notifications
from app.services.auth_service import register_user

engine = create_engine("sqlite://", connect_args={"check_same_thread": False}, poolclass=StaticPool)
TestingSession = sessionmaker(bind=engine, autoflush=False, expire_on_commit=False)


@pytest.fixture()
def db():
    Base.metadata.create_all(engine)
    session = TestingSession()
    try:
        yield session
    finally:
        session.close()
        Base.metadata.drop_all(engine)


@pytest.fixture()
def client(db):
    app.dependency_overrides[get_db] = lambda: db
    notifications.outbox.clear()
    with TestClient(app) as c:
        yield c
    app.dependency_overrides.clear()


@pytest.fixture()
def user(db):
    return register_user(db, "reader@example.com", "correct-horse", "Reader")


@pytest.fixture()
def admin(db):
    u = register_user(db, "admin@example.com", "staple-battery", "Admin")
    u.is_admin = True
    db.commit()
    return u


@pytest.fixture()
def auth(user):
    return {"Authorization": f"Bearer {create_access_token(user.id)}"}


@pytest.fixture()
def admin_auth(admin):
    return {"Authorization": f"Bearer {create_access_token(admin.id)}"}


@pytest.fixture()
def make_book(db):
    counter = {"n": 0}

    def _make(title="Dune", author="Frank Herbert", price_cents=999, stock=10, genre="sci-fi"):
        counter["n"] += 1
        a = Author(name=author)
        book = Book(
            title=title, author=a, isbn=f"978000000{counter['n']:04d}", price_cents=price_cents,
            stock=stock, genre=genre,
        )
        db.add(book)
        db.commit()
        return book

    return _make
