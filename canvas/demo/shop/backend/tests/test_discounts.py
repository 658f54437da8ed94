from app.main import app
from fastapi.testclient import TestClient

client = TestClient(app)


def test_apply_discount_code_at_checkout():
    answer = client.post("/api/checkout/discount-code", params={"code": "welcome10", "subtotal": "50.00"})
    assert answer.json() == {"discount": "5.00", "total": "45.00"}


def test_unknown_discount_code_is_refused():
    answer = client.post("/api/checkout/discount-code", params={"code": "FREE", "subtotal": "50.00"})
    assert answer.status_code == 422
