def test_update_profile_display_name(client, auth):
    r = client.patch("/users/me", json={"display_name": "  Ada  "}, headers=auth)
    assert r.status_code == 200
    assert r.json()["display_name"] == "Ada"


def test_reading_list_add_and_remove(client, auth, make_book):
    book = make_book(title="Middlemarch", author="George Eliot")
    r = client.post("/users/me/reading-list", json={"book_id": book.id, "note": "after exams"}, headers=auth)
    assert r.status_code == 201
    assert client.post("/users/me/reading-list", json={"book_id": book.id}, headers=auth).status_code == 409

    listing = client.get("/users/me/reading-list", headers=auth).json()
    assert [e["title"] for e in listing] == ["Middlemarch"]
    assert listing[0]["author"] == "George Eliot"

    assert client.delete(f"/users/me/reading-list/{book.id}", headers=auth).status_code == 204
    assert client.get("/users/me/reading-list", headers=auth).json() == []


def test_close_account_blocks_login(client, auth, user):
    assert client.delete("/users/me", headers=auth).status_code == 204
    r = client.post("/auth/login", data={"username": user.email, "password": "correct-horse"})
    assert r.status_code == 401
