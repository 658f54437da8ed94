import csv
import io

from app.models.book import Author

NEW_BOOK = {"title": "Kindred", "isbn": "9780807083697", "price_cents": 1099, "stock": 4}


def test_admin_create_book(client, db, admin_auth):
    author = Author(name="Octavia E. Butler")
    db.add(author)
    db.commit()
    r = client.post("/admin/books", json={**NEW_BOOK, "author_id": author.id}, headers=admin_auth)
    assert r.status_code == 201
    assert r.json()["author"]["name"] == "Octavia E. Butler"


def test_admin_update_book(client, admin_auth, make_book):
    book = make_book()
    payload = {**NEW_BOOK, "author_id": book.author_id, "price_cents": 799}
    r = client.put(f"/admin/books/{book.id}", json=payload, headers=admin_auth)
    assert r.status_code == 200 and r.json()["price_cents"] == 799


def test_admin_delete_book(client, admin_auth, make_book):
    book = make_book()
    assert client.delete(f"/admin/books/{book.id}", headers=admin_auth).status_code == 204
    assert client.get(f"/books/{book.id}").status_code == 404


def test_non_admin_forbidden(client, auth):
    assert client.get("/admin/orders/export", headers=auth).status_code == 403


def test_export_orders_csv(client, auth, admin_auth, make_book):
    book = make_book(price_cents=2000)
    client.post("/cart/items", json={"book_id": book.id}, headers=auth)
    client.post("/orders/checkout", json={"shipping_address": "1 Main Street, Leeds", "payment_token": "tok_x"}, headers=auth)
    r = client.get("/admin/orders/export", headers=admin_auth)
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert rows[0]["customer_email"] == "reader@example.com"
    assert rows[0]["total"] == "20.00"


def test_low_stock_report(client, admin_auth, make_book):
    make_book(title="Plenty", stock=50)
    make_book(title="Scarce", stock=2)
    r = client.get("/admin/inventory/low-stock", headers=admin_auth)
    assert [b["title"] for b in r.json()] == ["Scarce"]
