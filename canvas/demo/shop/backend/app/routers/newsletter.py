"""Newsletter sign-up with double opt-in: subscribe, then confirm from the e-mail's link."""

import secrets

from fastapi import APIRouter, HTTPException

from app.models import Subscriber

router = APIRouter(prefix="/newsletter", tags=["newsletter"])
SUBSCRIBERS: dict[str, Subscriber] = {}
OUTBOX: list[tuple[str, str]] = []  # (to, body): what the mailer would send


@router.post("/signup")
def newsletter_signup(email: str) -> dict[str, str]:
    """First opt-in: remember the address, unconfirmed, and send the confirmation link."""
    subscriber = SUBSCRIBERS.get(email) or Subscriber(email, secrets.token_urlsafe(16))
    SUBSCRIBERS[email] = subscriber
    OUTBOX.append((email, f"Confirm your subscription: /newsletter/confirm?token={subscriber.token}"))
    return {"status": "pending confirmation"}


@router.get("/confirm")
def confirm_opt_in(token: str) -> dict[str, str]:
    """Second opt-in: the link from the e-mail confirms the subscription."""
    for subscriber in SUBSCRIBERS.values():
        if secrets.compare_digest(subscriber.token, token):
            subscriber.confirmed = True
            return {"status": "subscribed"}
    raise HTTPException(404, "unknown or expired link")
