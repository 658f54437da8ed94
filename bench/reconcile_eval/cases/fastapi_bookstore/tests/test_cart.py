from datetime import datetime, timedelta, timezone

from app.models.order import Coupon


def test_add_to_cart(client, auth, make_book):
    book = make_book(price_cents=1200)
    r = client.post("/cart/items", json={"book_id": book.id, "quantity": 2}, headers=auth)
    assert r.status_code == 201
    assert r.json()["subtotal_cents"] == 2400


def test_cannot_add_more_than_stock(client, auth, make_book):
    book = make_book(stock=1)
    r = client.post("/cart/items", json={"book_id": book.id, "quantity": 2}, headers=auth)
    assert r.status_code == 400


def test_update_cart_quantity(client, auth, make_book):
    book = make_book(price_cents=500)
    cart = client.post("/cart/items", json={"book_id": book.id}, headers=auth).json()
    item_id = cart["items"][0]["id"]
    r = client.patch(f"/cart/items/{item_id}", json={"quantity": 3}, headers=auth)
    assert r.json()["total_cents"] == 1500
    r = client.patch(f"/cart/items/{item_id}", json={"quantity": 0}, headers=auth)
    assert r.json()["items"] == []


def test_apply_coupon(client, db, auth, make_book):
    db.add(Coupon(code="SPRING20", percent_off=20))
    db.commit()
    book = make_book(price_cents=1000)
    client.post("/cart/items", json={"book_id": book.id}, headers=auth)
    r = client.post("/cart/coupon", json={"code": "spring20"}, headers=auth)
    assert r.status_code == 200
    assert r.json()["discount_cents"] == 200
    assert r.json()["total_cents"] == 800


def test_apply_expired_coupon_rejected(client, db, auth):
    db.add(Coupon(code="OLD10", percent_off=10, expires_at=datetime.now(timezone.utc) - timedelta(days=1)))
    db.commit()
    r = client.post("/cart/coupon", json={"code": "OLD10"}, headers=auth)
    assert r.status_code == 422
    assert "expired" in r.json()["detail"]
