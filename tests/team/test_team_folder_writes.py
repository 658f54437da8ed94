"""The clone's team-folder records (`retired-claims.json`, `rewound-claims.json`) are read, changed and
written back by every fetch, `team sync` and `team repair` of the clone: two at once must not lose an
entry (a retired chain lost is a stale mirror's push taken as a new claim; a rewind lost lets the picker
hand out a task whose claim a force-push rewound). Real files, real threads through the real functions."""

from __future__ import annotations

import threading

from leafwise.commands.team import rewinds

WRITES = 40


def sha(n: int) -> str:
    return f"{n:040x}"


def race(*jobs) -> None:
    start = threading.Barrier(len(jobs))

    def run(job) -> None:
        start.wait()
        job()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)


def test_two_writers_retiring_chains_at_once_lose_no_entry(tmp_path):
    folder = tmp_path / "team"
    folder.mkdir()
    not_a_repo = tmp_path / "work"  # first_commit answers None there: the SHA itself is retired
    not_a_repo.mkdir()

    def retire(side: str):
        return lambda: [rewinds.retire(not_a_repo, folder, f"refs/x/{side}-{i}", sha(i)) for i in range(WRITES)]

    race(retire("a"), retire("b"))
    assert len(rewinds.retired(folder)) == 2 * WRITES


def test_a_rewind_recorded_while_another_is_forgotten_stays_recorded(tmp_path):
    folder = tmp_path / "team"
    folder.mkdir()
    with rewinds.records(folder) as found:
        found.update({f"refs/x/old-{i}": {"seen": sha(i), "remote": sha(i + 1)} for i in range(WRITES)})

    def record():
        for i in range(WRITES):
            with rewinds.records(folder) as found:
                found[f"refs/x/new-{i}"] = {"seen": sha(i), "remote": sha(i + 1)}

    def forget():
        for i in range(WRITES):
            rewinds.forget(folder, f"refs/x/old-{i}")

    race(record, forget)
    assert sorted(rewinds.recorded(folder)) == sorted(f"refs/x/new-{i}" for i in range(WRITES))


def test_agents_of_one_clone_claiming_offline_at_once_keep_every_claim_to_push(tmp_path):
    import subprocess

    from leafwise.commands.team import offline, remote
    from leafwise.commands.team.remote import Team
    from leafwise.store.paths import PlanPaths

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    team = Team(PlanPaths(tmp_path), "origin", "file:///nowhere", "refs/leafwise", "refs")
    remote.clone_id(tmp_path, create=True)  # a joined clone (one that never joined keeps no offline claim)

    def claim(side: str):
        return lambda: [offline.remember(team, f"T-{side}{i}", side, 600.0, "2026-01-01T00:00:00Z")
                        for i in range(WRITES)]

    race(claim("1"), claim("2"))
    assert len(offline.pending(team)) == 2 * WRITES  # each one is pushed create-only by team sync


def test_team_status_lists_claims_in_id_order():
    from leafwise.commands.team import protocol, status

    seen = {n: protocol.Remote(n, sha(i), None, 0.0) for i, n in enumerate(["HX-10", "HX-6", "HX-21", "HX-9"])}
    assert [row.node_id for row in status.rows(seen)] == ["HX-6", "HX-9", "HX-10", "HX-21"]



def test_fetches_recording_sightings_at_once_never_move_a_first_sighting(tmp_path):
    """observed.json: each fetch of the clone loads the sightings, keeps a SHA's first one and writes
    them back. A writer that loaded the file before another's first write puts its own, later, first
    sighting over it: the steal a TTL after the first sighting then comes later, by the writers' gap,
    and a clone whose agents fetch all the time could push it off again and again. Under the lock the
    first sighting written stays: every fetcher reads back the one its own write kept."""
    from leafwise.commands.team import observations

    folder = tmp_path / "team"
    folder.mkdir()
    sides = 4
    rounds = threading.Barrier(sides)
    read_back: dict[int, set[float]] = {}

    def fetcher(side: int):
        def run() -> None:
            for i in range(WRITES):
                ref = f"refs/x/claims/T-{i}"
                rounds.wait()  # every fetcher has the same copies this round: one new claim
                observations.seen(folder, {ref: sha(i)}, now=float(side * 1000 + i))
                read_back.setdefault(i, set()).add(observations.load(folder)[ref][1])
        return run

    race(*(fetcher(side) for side in range(sides)))
    moved = {i: found for i, found in read_back.items() if len(found) > 1}
    assert not moved, f"{len(moved)} of {WRITES} first sightings moved after a fetcher read them: {moved}"
