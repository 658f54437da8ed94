"""Invoice PDFs for orders. Not wired to a route or an e-mail yet, and untested."""

from decimal import Decimal

from app.models import Order

SELLER = "Shop GmbH, Example Street 1, 10115 Berlin"


def invoice_lines(order: Order) -> list[str]:
    lines = [SELLER, f"Invoice for order #{order.id}", ""]
    for line in order.lines:
        lines.append(f"{line.quantity} x {line.name}  {line.unit_price * line.quantity:.2f} EUR")
    lines.append(f"Total  {order.subtotal:.2f} EUR")
    return lines


def render_invoice_pdf(order: Order) -> bytes:
    """A minimal one-page PDF with the invoice's text lines."""
    text = "\n".join(invoice_lines(order)).replace("(", "[").replace(")", "]")
    stream = f"BT /F1 11 Tf 50 780 Td 14 TL ({text}) Tj ET".encode()
    return b"%PDF-1.4\n" + stream + b"\n%%EOF\n"


def invoice_total(order: Order) -> Decimal:
    return order.subtotal
