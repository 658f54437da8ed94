from app.main import app
from fastapi.testclient import TestClient

client = TestClient(app)


def test_add_to_wishlist_and_list_it():
    client.post("/api/wishlist/3", params={"user_id": 7})
    saved = client.get("/api/wishlist", params={"user_id": 7}).json()
    assert [p["slug"] for p in saved] == ["canvas-tote"]


def test_remove_from_wishlist():
    client.post("/api/wishlist/1", params={"user_id": 8})
    assert client.delete("/api/wishlist/1", params={"user_id": 8}).json() == []
