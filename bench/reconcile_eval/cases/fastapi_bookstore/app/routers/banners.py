from datetime import datetime, timezone

from fastapi import APIRouter, Depends, HTTPException, Response, status
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.database import get_db
from app.deps import require_admin
from app.models.banner import Banner
from app.schemas.banner import BannerIn, BannerOut

router = APIRouter(tags=["banners"])


@router.get("/banners/active", response_model=list[BannerOut])
def active_banners(db: Session = Depends(get_db)):
    """Banners whose window contains now, highest priority first (the home page shows the first three)."""
    now = datetime.now(timezone.utc)
    stmt = (
        select(Banner)
        .where(Banner.starts_at <= now, Banner.ends_at > now)
        .order_by(Banner.priority.desc(), Banner.starts_at)
        .limit(3)
    )
    return list(db.scalars(stmt))


@router.get("/admin/banners", response_model=list[BannerOut], dependencies=[Depends(require_admin)])
def all_banners(db: Session = Depends(get_db)):
    return list(db.scalars(select(Banner).order_by(Banner.starts_at.desc())))


@router.post(
    "/admin/banners",
    response_model=BannerOut,
    status_code=status.HTTP_201_CREATED,
    dependencies=[Depends(require_admin)],
)
def schedule_banner(body: BannerIn, db: Session = Depends(get_db)):
    banner = Banner(**body.model_dump())
    db.add(banner)
    db.commit()
    db.refresh(banner)
    return banner


@router.delete("/admin/banners/{banner_id}", status_code=204, dependencies=[Depends(require_admin)])
def remove_banner(banner_id: int, db: Session = Depends(get_db)):
    banner = db.get(Banner, banner_id)
    if banner is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Banner not found")
    db.delete(banner)
    db.commit()
    return Response(status_code=204)
