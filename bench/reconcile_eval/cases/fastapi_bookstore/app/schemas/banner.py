from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, model_validator


class BannerIn(BaseModel):
    headline: str = Field(min_length=3, max_length=120)
    image_url: str
    link_url: str | None = None
    starts_at: datetime
    ends_at: datetime
    priority: int = 0

    @model_validator(mode="after")
    def check_window(self) -> "BannerIn":
        if self.ends_at <= self.starts_at:
            raise ValueError("ends_at must be after starts_at")
        return self


class BannerOut(BannerIn):
    model_config = ConfigDict(from_attributes=True)

    id: int
