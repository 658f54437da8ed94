import logging
import smtplib
from email.message import EmailMessage

from app.config import get_settings

log = logging.getLogger(__name__)

outbox: list[EmailMessage] = []  # tests inspect this when SMTP is disabled


def send_email(to: str, subject: str, body: str) -> None:
    settings = get_settings()
    msg = EmailMessage()
    msg["From"] = settings.mail_from
    msg["To"] = to
    msg["Subject"] = subject
    msg.set_content(body)
    if settings.smtp_host == "disabled":
        outbox.append(msg)
        return
    try:
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=10) as smtp:
            smtp.send_message(msg)
    except OSError:
        log.exception("could not send mail to %s", to)


def send_password_reset_email(to: str, link: str, minutes: int) -> None:
    body = (
        "Someone asked to reset the password of your bookstore account.\n\n"
        f"Open this link within {minutes} minutes to choose a new password:\n{link}\n\n"
        "If it was not you, ignore this message."
    )
    send_email(to, "Reset your password", body)


def send_order_confirmation(to: str, order_id: int, total_cents: int, lines: list[tuple[str, int]]) -> None:
    # Template agreed with marketing; not wired into checkout yet (waiting on the SES account).
    items = "\n".join(f"  {qty} x {title}" for title, qty in lines)
    body = (
        f"Thank you for your order #{order_id}.\n\n{items}\n\n"
        f"Total: £{total_cents / 100:.2f}\n"
        "We will e-mail you again when it ships."
    )
    send_email(to, f"Order #{order_id} confirmed", body)
