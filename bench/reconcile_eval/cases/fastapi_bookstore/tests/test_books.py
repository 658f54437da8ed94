def test_list_books_paginated(client, make_book):
    for i in range(25):
        make_book(title=f"Book {i:02d}")
    first = client.get("/books", params={"page": 1, "size": 10}).json()
    third = client.get("/books", params={"page": 3, "size": 10}).json()
    assert first["total"] == 25
    assert len(first["items"]) == 10
    assert [b["title"] for b in third["items"]] == [f"Book {i}" for i in range(20, 25)]


def test_list_books_rejects_huge_page_size(client):
    assert client.get("/books", params={"size": 1000}).status_code == 422


def test_search_books_by_title(client, make_book):
    make_book(title="The Left Hand of Darkness", author="Ursula K. Le Guin")
    make_book(title="Dune")
    hits = client.get("/books/search", params={"q": "darkness"}).json()
    assert [b["title"] for b in hits] == ["The Left Hand of Darkness"]


def test_search_books_by_author(client, make_book):
    make_book(title="A Wizard of Earthsea", author="Ursula K. Le Guin")
    make_book(title="Dune", author="Frank Herbert")
    hits = client.get("/books/search", params={"q": "le guin"}).json()
    assert len(hits) == 1 and hits[0]["author"]["name"] == "Ursula K. Le Guin"


def test_get_book_detail(client, make_book):
    book = make_book(title="Piranesi", stock=0)
    r = client.get(f"/books/{book.id}")
    assert r.status_code == 200
    assert r.json()["isbn"] == book.isbn
    assert r.json()["in_stock"] is False


def test_get_missing_book_is_404(client):
    assert client.get("/books/999").status_code == 404
