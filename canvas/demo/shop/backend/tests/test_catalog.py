from app.main import app
from fastapi.testclient import TestClient

client = TestClient(app)


def test_category_page_lists_its_products():
    names = [p["name"] for p in client.get("/api/categories/shirts").json()]
    assert names == ["Linen shirt"]


def test_search_autocomplete_suggests_product_names():
    assert client.get("/api/search/autocomplete", params={"q": "lin"}).json() == ["Linen shirt", "Linen trousers"]


def test_search_autocomplete_waits_for_two_letters():
    assert client.get("/api/search/autocomplete", params={"q": "l"}).json() == []
