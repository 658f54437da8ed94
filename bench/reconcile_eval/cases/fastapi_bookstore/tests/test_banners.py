from datetime import datetime, timedelta, timezone

from app.models.banner import Banner

NOW = datetime.now(timezone.utc)


def test_active_banners_only_current(client, db):
    db.add_all([
        Banner(headline="Summer sale", image_url="/img/summer.jpg", starts_at=NOW - timedelta(days=1),
               ends_at=NOW + timedelta(days=5), priority=1),
        Banner(headline="Expired", image_url="/img/old.jpg", starts_at=NOW - timedelta(days=10),
               ends_at=NOW - timedelta(days=3)),
        Banner(headline="Coming soon", image_url="/img/soon.jpg", starts_at=NOW + timedelta(days=2),
               ends_at=NOW + timedelta(days=9)),
    ])
    db.commit()
    assert [b["headline"] for b in client.get("/banners/active").json()] == ["Summer sale"]


def test_admin_schedules_banner(client, admin_auth):
    payload = {
        "headline": "Booker shortlist",
        "image_url": "/img/booker.jpg",
        "starts_at": NOW.isoformat(),
        "ends_at": (NOW + timedelta(days=7)).isoformat(),
    }
    r = client.post("/admin/banners", json=payload, headers=admin_auth)
    assert r.status_code == 201


def test_banner_window_must_be_ordered(client, admin_auth):
    payload = {
        "headline": "Backwards",
        "image_url": "/img/x.jpg",
        "starts_at": NOW.isoformat(),
        "ends_at": (NOW - timedelta(days=1)).isoformat(),
    }
    assert client.post("/admin/banners", json=payload, headers=admin_auth).status_code == 422
