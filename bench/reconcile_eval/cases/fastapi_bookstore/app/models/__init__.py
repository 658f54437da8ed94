from app.models.banner import Banner
from app.models.book import Author, Book, Publisher, Review
from app.models.order import Cart, CartItem, Coupon, Order, OrderItem, OrderStatus
from app.models.user import Address, PasswordResetToken, ReadingListEntry, User

__all__ = [
    "Address", "Author", "Banner", "Book", "Cart", "CartItem", "Coupon", "Order",
    "OrderItem", "OrderStatus", "PasswordResetToken", "Publisher", "ReadingListEntry",
    "Review", "User",
]
