import pytest

from app.models.book import Book
from app.models.order import OrderStatus
from app.services.orders import OrderError, cancel_order

ADDRESS = "221B Baker Street, London NW1 6XE"


def _checkout(client, auth, **extra):
    payload = {"shipping_address": ADDRESS, "payment_token": "tok_visa", **extra}
    return client.post("/orders/checkout", json=payload, headers=auth)


def test_checkout_creates_order(client, db, auth, make_book):
    book = make_book(price_cents=1500, stock=3)
    client.post("/cart/items", json={"book_id": book.id, "quantity": 2}, headers=auth)
    r = _checkout(client, auth)
    assert r.status_code == 201
    assert r.json()["status"] == "paid"
    assert r.json()["total_cents"] == 3000
    db.refresh(book)
    assert book.stock == 1
    assert client.get("/cart", headers=auth).json()["items"] == []


def test_checkout_with_gift_wrap_adds_fee(client, auth, make_book):
    book = make_book(price_cents=1000)
    client.post("/cart/items", json={"book_id": book.id}, headers=auth)
    r = _checkout(client, auth, gift_wrap=True, gift_message="Happy birthday!")
    assert r.json()["total_cents"] == 1350


def test_checkout_empty_cart_is_400(client, auth):
    assert _checkout(client, auth).status_code == 400


def test_declined_card_is_402(client, auth, make_book):
    book = make_book()
    client.post("/cart/items", json={"book_id": book.id}, headers=auth)
    assert _checkout(client, auth, payment_token="tok_declined_insufficient").status_code == 402


def test_list_my_orders(client, auth, make_book):
    book = make_book()
    for _ in range(2):
        client.post("/cart/items", json={"book_id": book.id}, headers=auth)
        _checkout(client, auth)
    orders = client.get("/orders", headers=auth).json()
    assert len(orders) == 2


def test_cancel_order_restocks(client, db, auth, user, make_book):
    book = make_book(stock=5)
    client.post("/cart/items", json={"book_id": book.id, "quantity": 2}, headers=auth)
    order_id = _checkout(client, auth).json()["id"]
    from app.models.order import Order

    order = db.get(Order, order_id)
    cancel_order(db, order, user)
    assert order.status == OrderStatus.CANCELLED
    assert db.get(Book, book.id).stock == 5
    with pytest.raises(OrderError):
        cancel_order(db, order, user)
