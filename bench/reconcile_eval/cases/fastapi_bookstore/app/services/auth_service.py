from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import get_settings
from app.models.user import PasswordResetToken, User
from app.security import digest_token, hash_password, new_reset_token, verify_password
from app.services.notifications import send_password_reset_email


class EmailAlreadyRegistered(Exception):
    pass


class InvalidResetToken(Exception):
    pass


def register_user(db: Session, email: str, password: str, display_name: str = "") -> User:
    email = email.strip().lower()
    if db.scalar(select(User).where(User.email == email)):
        raise EmailAlreadyRegistered(email)
    user = User(email=email, hashed_password=hash_password(password), display_name=display_name)
    db.add(user)
    db.commit()
    db.refresh(user)
    return user


def authenticate(db: Session, email: str, password: str) -> User | None:
    user = db.scalar(select(User).where(User.email == email.strip().lower()))
    if user is None or not user.is_active:
        return None
    if not verify_password(password, user.hashed_password):
        return None
    return user


def start_password_reset(db: Session, email: str) -> None:
    """Create a single-use token and mail the link. Silent when the e-mail is unknown."""
    settings = get_settings()
    user = db.scalar(select(User).where(User.email == email.strip().lower()))
    if user is None or not user.is_active:
        return
    raw, digest = new_reset_token()
    expires = datetime.now(timezone.utc) + timedelta(minutes=settings.password_reset_minutes)
    db.add(PasswordResetToken(user_id=user.id, token_hash=digest, expires_at=expires))
    db.commit()
    link = f"{settings.frontend_url}/reset-password?token={raw}"
    send_password_reset_email(user.email, link, settings.password_reset_minutes)


def complete_password_reset(db: Session, raw_token: str, new_password: str) -> User:
    record = db.scalar(select(PasswordResetToken).where(PasswordResetToken.token_hash == digest_token(raw_token)))
    now = datetime.now(timezone.utc)
    if record is None or record.used_at is not None:
        raise InvalidResetToken("unknown or already used")
    expires_at = record.expires_at if record.expires_at.tzinfo else record.expires_at.replace(tzinfo=timezone.utc)
    if expires_at < now:
        raise InvalidResetToken("expired")
    user = db.get(User, record.user_id)
    user.hashed_password = hash_password(new_password)
    record.used_at = now
    db.commit()
    return user
