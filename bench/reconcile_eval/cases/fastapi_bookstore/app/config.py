from functools import lru_cache

from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    app_name: str = "Bookstore API"
    database_url: str = "sqlite:///./bookstore.db"
    secret_key: str = "change-me-in-production"
    jwt_algorithm: str = "HS256"
    access_token_minutes: int = 60
    password_reset_minutes: int = 30
    frontend_url: str = "https://books.example.com"

    smtp_host: str = "localhost"
    smtp_port: int = 25
    mail_from: str = "no-reply@books.example.com"

    default_page_size: int = 20
    max_page_size: int = 100
    low_stock_threshold: int = 5
    gift_wrap_fee_cents: int = 350

    model_config = {"env_prefix": "BOOKSTORE_"}


@lru_cache
def get_settings() -> Settings:
    return Settings()
