from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from app.models.user import PasswordResetToken
from app.services import notifications


def test_register_creates_user(client):
    r = client.post("/auth/register", json={"email": "New@Example.com", "password": "long-enough-pw"})
    assert r.status_code == 201
    assert r.json()["email"] == "new@example.com"


def test_register_rejects_duplicate_email(client, user):
    r = client.post("/auth/register", json={"email": user.email, "password": "long-enough-pw"})
    assert r.status_code == 409


def test_login_returns_token(client, user):
    r = client.post("/auth/login", data={"username": user.email, "password": "correct-horse"})
    assert r.status_code == 200
    assert r.json()["token_type"] == "bearer"
    me = client.get("/users/me", headers={"Authorization": f"Bearer {r.json()['access_token']}"})
    assert me.json()["id"] == user.id


def test_login_with_wrong_password_is_401(client, user):
    r = client.post("/auth/login", data={"username": user.email, "password": "nope-nope"})
    assert r.status_code == 401


def _reset_link_token() -> str:
    body = notifications.outbox[-1].get_content()
    return body.split("token=")[1].split()[0]


def test_password_reset_sends_email(client, user):
    r = client.post("/auth/password-reset", json={"email": user.email})
    assert r.status_code == 202
    assert notifications.outbox[-1]["To"] == user.email


def test_password_reset_unknown_email_is_silent(client):
    r = client.post("/auth/password-reset", json={"email": "ghost@example.com"})
    assert r.status_code == 202
    assert notifications.outbox == []


def test_password_reset_confirm_sets_new_password(client, user):
    client.post("/auth/password-reset", json={"email": user.email})
    token = _reset_link_token()
    r = client.post("/auth/password-reset/confirm", json={"token": token, "new_password": "brand-new-pw"})
    assert r.status_code == 204
    login = client.post("/auth/login", data={"username": user.email, "password": "brand-new-pw"})
    assert login.status_code == 200
    again = client.post("/auth/password-reset/confirm", json={"token": token, "new_password": "another-pw"})
    assert again.status_code == 400


def test_password_reset_token_expires(client, db, user):
    client.post("/auth/password-reset", json={"email": user.email})
    token = _reset_link_token()
    record = db.scalar(select(PasswordResetToken))
    record.expires_at = datetime.now(timezone.utc) - timedelta(minutes=1)
    db.commit()
    r = client.post("/auth/password-reset/confirm", json={"token": token, "new_password": "brand-new-pw"})
    assert r.status_code == 400
    assert "expired" in r.json()["detail"]
