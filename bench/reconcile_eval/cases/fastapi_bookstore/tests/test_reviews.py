from app.models.book import Review
from app.services.ratings import average_rating, rating_counts


def test_create_review(client, auth, make_book):
    book = make_book()
    r = client.post(f"/books/{book.id}/reviews", json={"rating": 4, "body": "Spice!"}, headers=auth)
    assert r.status_code == 201
    listed = client.get(f"/books/{book.id}/reviews").json()
    assert listed[0]["rating"] == 4


def test_review_rating_must_be_between_1_and_5(client, auth, make_book):
    book = make_book()
    assert client.post(f"/books/{book.id}/reviews", json={"rating": 6}, headers=auth).status_code == 422


def test_one_review_per_book(client, auth, make_book):
    book = make_book()
    client.post(f"/books/{book.id}/reviews", json={"rating": 3}, headers=auth)
    assert client.post(f"/books/{book.id}/reviews", json={"rating": 5}, headers=auth).status_code == 409


def test_average_rating(db, make_book, user, admin):
    book = make_book()
    assert average_rating(db, book.id) is None
    db.add_all([Review(book_id=book.id, user_id=user.id, rating=5), Review(book_id=book.id, user_id=admin.id, rating=2)])
    db.commit()
    assert average_rating(db, book.id) == 3.5
    assert rating_counts(db, book.id)[5] == 1
