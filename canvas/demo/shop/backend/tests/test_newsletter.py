from app.main import app
from app.routers.newsletter import OUTBOX, SUBSCRIBERS
from fastapi.testclient import TestClient

client = TestClient(app)


def test_newsletter_signup_needs_the_double_opt_in():
    assert client.post("/api/newsletter/signup", params={"email": "ana@example.com"}).json() == {
        "status": "pending confirmation"}
    assert not SUBSCRIBERS["ana@example.com"].confirmed
    link = OUTBOX[-1][1]
    token = link.split("token=")[1]
    assert client.get("/api/newsletter/confirm", params={"token": token}).json() == {"status": "subscribed"}
    assert SUBSCRIBERS["ana@example.com"].confirmed


def test_confirm_opt_in_refuses_an_unknown_token():
    assert client.get("/api/newsletter/confirm", params={"token": "nope"}).status_code == 404
