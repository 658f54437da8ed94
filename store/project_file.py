"""project.yaml as a `Project`: every wrong value a problem with its line, and a safe default."""

from __future__ import annotations

from typing import Any, Callable

from leafwise.store.cache import Entry, StatKey, stat_key
from leafwise.store.ids import DEFAULT_PREFIX, is_release_id, prefix_problem
from leafwise.store.model import Problem, Project, Release
from leafwise.store.paths import PlanPaths, relative
from leafwise.store.safe_yaml import (
    Refused,
    describe_error,
    digest_bytes,
    error_line,
    line_of_key,
    read_bounded,
    safe_load,
)
from leafwise.store.schema import MAX_TEXT_CHARS

PROJECT_KEY = "../project.yaml"  # its entry in the node cache; no node file can have this name


def _project_data(paths: PlanPaths, entries: dict[str, Entry], fresh: dict[str, Entry]) -> tuple[Any, list[Problem]]:
    """project.yaml's mapping, from the cache when its stat key still matches."""
    rel = relative(paths.project_file, paths.repo)
    try:
        st = paths.project_file.stat()
    except FileNotFoundError:
        return {}, [Problem("missing_project", "error", "project.yaml is missing", "leafwise init", file=rel)]
    key: StatKey = stat_key(st)
    hit = entries.get(PROJECT_KEY)
    if hit is None or hit[0] != key:
        try:
            raw = read_bounded(paths.project_file)
        except OSError as exc:
            return {}, [Problem("unreadable_file", "error", f"cannot read project.yaml: {exc.strerror}",
                                "leafwise doctor", file=rel)]
        except Refused as exc:
            return {}, [Problem(exc.code, "error", f"project.yaml: {exc}", f"fix {rel}", file=rel, line=exc.line)]
        try:
            hit = (key, safe_load(raw) or {}, digest_bytes(raw), None)
        except Exception as exc:  # noqa: BLE001 - a broken project.yaml is a problem with a line
            hit = (key, None, digest_bytes(raw), (describe_error(exc), error_line(exc, raw)))
    fresh[PROJECT_KEY] = hit
    if hit[3]:
        message, line = hit[3]
        return {}, [Problem("yaml_error", "error", message, f"fix the YAML in {rel}", file=rel, line=line)]
    return hit[1], []


def load_project(paths: PlanPaths, entries: dict[str, Entry] | None = None,
                 fresh: dict[str, Entry] | None = None) -> tuple[Project, list[Problem]]:
    """project.yaml as a Project; every wrong value is a problem with its line and a safe default."""
    rel = relative(paths.project_file, paths.repo)
    data, problems = _project_data(paths, entries or {}, fresh if fresh is not None else {})

    def bad(key: str | None, message: str, fix_text: str) -> None:
        line = 1
        if key is not None:
            try:
                line = line_of_key(read_bounded(paths.project_file), key) or 1
            except (OSError, ValueError):
                line = None
        problems.append(Problem("project_error", "error", f"project.yaml: {message}",
                                f"fix {rel} line {line}: {fix_text}" if line else f"fix {rel}: {fix_text}",
                                file=rel, line=line))

    if not isinstance(data, dict):
        bad(None, "must be a mapping of keys to values", "write it as key: value lines")
        data = {}
    releases = _releases(data.get("releases"), bad)
    prefix = data.get("id_prefix") or DEFAULT_PREFIX
    if problem := prefix_problem(prefix):
        bad("id_prefix", problem, "id_prefix: SHOP")
        prefix = DEFAULT_PREFIX
    prefix = prefix.upper()
    schema = data.get("schema", 1)
    if schema is None:
        schema = 1
    if isinstance(schema, bool) or not isinstance(schema, int) or not 0 < schema < 1000:
        bad("schema", f"schema must be a version number like 1, not {str(schema)[:40]!r}", "schema: 1")
        schema = 1
    settings = data.get("settings") or {}
    if not isinstance(settings, dict):
        bad("settings", "settings must be a mapping", "settings: {}")
        settings = {}
    settings = _checked_settings(settings, bad)
    for key in ("pid", "name"):
        if isinstance(data.get(key), (dict, list)):
            bad(key, f"{key} must be text", f"{key}: text")
            data = {**data, key: None}
    former = _former_prefixes(data.get("former_prefixes"), bad)
    project = Project(
        pid=_text(data.get("pid"), paths.repo.name),
        name=_text(data.get("name"), paths.repo.name),
        id_prefix=prefix,
        releases=releases,
        schema=schema,
        settings=dict(settings),
        former_prefixes=tuple(dict.fromkeys(former)),
    )
    return project, problems


Bad = Callable[[str | None, str, str], None]  # (key, message, fix): one problem of project.yaml


def _checked_settings(settings: dict[str, Any], bad: Bad) -> dict[str, Any]:
    """The settings with each known value checked (a planted `.inf`, `-1` or text lease length is this
    file's problem, and the default applies); unknown keys are kept as they are."""
    from leafwise.store import claims, values

    ttl = settings.get(claims.TTL_SETTING)
    if ttl is not None:
        try:
            values.number(ttl, claims.TTL_SETTING, low=1, high=claims.MAX_TTL_MINUTES)
        except ValueError as exc:
            bad("settings", str(exc), f"settings: {{{claims.TTL_SETTING}: {claims.DEFAULT_TTL_MINUTES}}}")
            settings = {k: v for k, v in settings.items() if k != claims.TTL_SETTING}
    if TEAM_SETTING in settings and (problem := team_problem(settings[TEAM_SETTING])):
        bad("settings", problem, "team: {remote: origin, namespace: refs/leafwise, mode: refs}")
        settings = {k: v for k, v in settings.items() if k != TEAM_SETTING}  # team mode off until fixed
    return settings


TEAM_SETTING = "team"  # settings.team: the shared remote that holds the claims (commands/team/)
TEAM_MODES = ("refs", "branch")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def team_problem(team: Any) -> str | None:
    """What is wrong with a `settings.team` value, or None: a mapping naming the remote (a git remote's
    name), the ref namespace (`refs/<word>`, default refs/leafwise) and the mode (refs or branch)."""
    if not isinstance(team, dict):
        return "settings.team must be a mapping like {remote: origin}"
    unknown = sorted(set(map(str, team)) - {"remote", "namespace", "mode", "state_branch"})
    if unknown:
        return f"settings.team has no key {unknown[0][:40]!r}"
    remote = team.get("remote")
    if not _plain_name(remote):
        return f"settings.team.remote must name a git remote (like origin), not {str(remote)[:40]!r}"
    # Leafwise's own ref space only: a plan from a pull request naming refs/heads or refs/tags would have
    # claims pushed over the team's branches and tags with the person's credentials.
    namespace = team.get("namespace", "refs/leafwise")
    if not (isinstance(namespace, str) and namespace.startswith("refs/leafwise") and _plain_name(namespace[5:])):
        return f"settings.team.namespace must be refs/leafwise (or refs/leafwise-<word>), not {str(namespace)[:60]!r}"
    if team.get("mode", "refs") not in TEAM_MODES:
        return f"settings.team.mode is refs or branch, not {str(team.get('mode'))[:40]!r}"
    state_branch = team.get("state_branch", "leafwise/state")  # never main: branch mode rewrites its tree
    if not (isinstance(state_branch, str) and state_branch.startswith("leafwise/")
            and all(_plain_name(part) for part in state_branch.split("/"))):
        return f"settings.team.state_branch must be a branch under leafwise/ (like leafwise/state), not {str(state_branch)[:60]!r}"
    return None


def _plain_name(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 100 and value[0] not in ".-" \
        and set(value) <= _NAME_CHARS and ".." not in value and not value.endswith((".lock", "."))


def _releases(raw: Any, bad: Bad) -> list[Release]:
    """The releases in order; an entry without a valid id is a problem and is left out."""
    if not isinstance(raw or [], list):
        bad("releases", f"releases must be a list, not {type(raw).__name__}", "write releases: [{id: R1, title: MVP}]")
        return []
    releases: list[Release] = []
    for entry in raw or []:
        rid = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(rid, (int, float)) and not isinstance(rid, bool):
            rid = str(rid)
        if is_release_id(rid):
            title, target = entry.get("title"), entry.get("target")
            releases.append(Release(rid, _text(title, rid), _text(target, None)))
        else:
            bad("releases", f"release entry {str(entry)[:80]!r} has no valid id (letters, digits, . _ -)",
                "write it as {id: R1, title: ...}")
    return releases


def _former_prefixes(raw: Any, bad: Bad) -> list[str]:
    """The prefixes of ids given before `project set --prefix`, in capitals; a wrong one is a problem."""
    former: list[str] = []
    for item in (raw if isinstance(raw, list) else [raw]) if raw else []:
        if problem := prefix_problem(item):
            bad("former_prefixes", problem, "former_prefixes: [SHOP]")
        else:
            former.append(item.upper())
    return former


def _text(value: Any, default: Any) -> Any:
    if value is None or value == "" or isinstance(value, (dict, list)):
        return default
    return str(value)[:MAX_TEXT_CHARS]
