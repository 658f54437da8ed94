"""Routes a web framework derives from file names: each file that is a page or an API handler
becomes a `page` or `route` artifact whose words are its path segments.

- **Next.js** app dir (`app/**/page.tsx`, `route.ts` handlers per exported method; route
  groups `(group)` and parallel slots `@slot` add no segment, private `_folders` and
  intercepting `(.)` routes are not routes) and pages dir (`pages/**`, `pages/api/**`).
- **Remix** (`app/routes/`: v2 flat names `concerts.$city.tsx`, `_index`, pathless `_layout.`,
  `trailing_.`, optional `($lang)`, escapes `[.]`, folder routes `name/route.tsx`; v1 nested
  folders). A default export is a page; an `action` is a POST route; a module with a `loader`
  and no default export is a GET resource route.
- **SvelteKit** (`src/routes/**/+page.svelte`, `+server.ts` per exported method,
  `+page.server.ts` form `actions` as POST; groups dropped; `[id=matcher]` shown as `[id]`).
- **Nuxt** (`pages/**/*.vue`: Nuxt 3 `[id]` and Nuxt 2 `_id`; `server/api/**` and
  `server/routes/**` handlers, a `.get.ts` suffix naming the method).
- **TanStack Router** (`createFileRoute('/posts/$postId')`, wherever the file is).
- **Next.js middleware** (`middleware.ts`, `proxy.ts` from Next 16, at the root or in `src/`): one `ANY /*`
  route named by the paths it matches and redirects to.

A framework counts for a file when the nearest `package.json` above it depends on it (a
monorepo's apps each have theirs). The artifact sits at the default export's line, or at
line 1; the index page `/` is called "home".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from leafwise.commands.reconcile.artifacts import Index, Source, route_words
from leafwise.commands.reconcile.text import identifier_concepts
from leafwise.store import reader

FRAMEWORKS = {"next": "next", "nuxt": "nuxt", "nuxt3": "nuxt", "nuxt-edge": "nuxt", "@sveltejs/kit": "sveltekit",
              "@react-router/fs-routes": "remix", "@tanstack/react-router": "tanstack",
              "@tanstack/solid-router": "tanstack", "@tanstack/react-start": "tanstack"}
SCRIPT_EXT = frozenset({".js", ".jsx", ".ts", ".tsx", ".mjs"})
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
_DEFAULT = re.compile(r"^[ \t]*export\s+default\b", re.MULTILINE)
_METHOD_EXPORT = re.compile(r"^[ \t]*export\s+(?:async\s+)?(?:function|const|let|var)\s+(GET|POST|PUT|PATCH|DELETE)\b",
                            re.MULTILINE)
_REMIX_EXPORT = re.compile(r"^[ \t]*export\s+(?:async\s+)?(?:function|const|let|var)\s+(loader|action)\b", re.MULTILINE)
_ACTIONS = re.compile(r"^[ \t]*export\s+(?:const|let|var)\s+actions\b", re.MULTILINE)
_TANSTACK = re.compile(r"""\bcreate(?:Lazy)?FileRoute\(\s*['"`](/[^'"`]*)['"`]""")
HOME = "home"
_PATH_LITERAL = re.compile(r"""['"`](/[A-Za-z][\w\-/:*.]{0,80})""")
MIDDLEWARE_PATHS = 20


@dataclass
class Context:
    """What routes need from beyond one file: each package root's frameworks, and Remix folder routes."""

    roots: dict[str, frozenset[str]] = field(default_factory=dict)  # "" or "apps/web" -> {"next", ...}
    folder_routes: frozenset[str] = frozenset()  # folders under a Remix app/routes holding a route.* module

    @classmethod
    def of(cls, package_jsons: list[Source], files: list[str]) -> Context:
        roots: dict[str, frozenset[str]] = {}
        for src in package_jsons:
            found = frameworks_of(src.text)
            if found:
                parent = str(src.path.parent)
                roots[parent if parent != "." else ""] = found
        folders = frozenset(str(PurePosixPath(f).parent) for f in files
                            if "/routes/" in f and PurePosixPath(f).stem == "route")
        return cls(roots, folders)

    def frameworks(self, rel: str) -> tuple[str, frozenset[str]]:
        """The nearest package root above `rel` that uses a framework, and its frameworks."""
        best, found = None, frozenset()
        for root, fw in self.roots.items():
            if (root == "" or rel.startswith(root + "/")) and (best is None or len(root) > len(best)):
                best, found = root, fw
        return best or "", found


def frameworks_of(package_json: str) -> frozenset[str]:
    try:
        data = reader.load_json(package_json, reader.MANIFEST)
    except ValueError:  # not JSON, too deep or too large (reader.Refused)
        return frozenset()
    if not isinstance(data, dict):
        return frozenset()
    found = set()
    for section in ("dependencies", "devDependencies", "peerDependencies"):
        deps = data.get(section)
        if isinstance(deps, dict):
            for name in deps:
                if name in FRAMEWORKS:
                    found.add(FRAMEWORKS[name])
                elif isinstance(name, str) and name.startswith("@remix-run/"):
                    found.add("remix")
    return frozenset(found)


def scan_file(index: Index, src: Source, ctx: Context) -> None:
    """The page and route artifacts `src` stands for under its frameworks (nothing for tests)."""
    if src.is_test:
        return
    if "FileRoute(" in src.text:
        _tanstack(index, src)
    root, frameworks = ctx.frameworks(src.rel)
    if not frameworks:
        return
    parts = PurePosixPath(src.rel[len(root) + 1:] if root else src.rel).parts
    if "next" in frameworks:
        _next(index, src, parts)
    if "remix" in frameworks and parts[:2] == ("app", "routes"):
        _remix(index, src, parts[2:], ctx)
    if "sveltekit" in frameworks and parts[:2] == ("src", "routes"):
        _sveltekit(index, src, parts[2:])
    if "nuxt" in frameworks:
        _nuxt(index, src, parts)


def _page(index: Index, src: Source, route: str) -> None:
    m = _DEFAULT.search(src.text)
    words = identifier_concepts(route) or identifier_concepts(HOME)
    src.add(index, "page", route, m.start() if m else 0, words, side="ui", route=route)


def _route(index: Index, src: Source, method: str, route: str, offset: int) -> None:
    src.add(index, "route", f"{method} {route}", offset, route_words(method, route), side="server",
            method=method, route=route)


def _methods(index: Index, src: Source, route: str) -> None:
    for m in _METHOD_EXPORT.finditer(src.text):
        _route(index, src, m.group(1), route, m.start(1))


def _middleware(index: Index, src: Source) -> None:
    """Next.js middleware (`proxy` from Next 16) runs before every request it matches: one route named by
    the paths it matches and redirects to (`/dashboard`, `/login`), the first MIDDLEWARE_PATHS of them."""
    paths = list(dict.fromkeys(m.group(1) for m in _PATH_LITERAL.finditer(src.text)))[:MIDDLEWARE_PATHS]
    m = _DEFAULT.search(src.text)
    src.add(index, "route", "ANY /* (middleware)", m.start() if m else 0,
            route_words("ANY", " ".join(paths), src.path.stem), side="server", method="ANY", route="/*")


def _join(segments: list[str]) -> str:
    return "/" + "/".join(s for s in segments if s)


def _next(index: Index, src: Source, parts: tuple[str, ...]) -> None:
    suffix = src.path.suffix
    if suffix not in SCRIPT_EXT:
        return
    if parts[-1] in (f"middleware{suffix}", f"proxy{suffix}") and parts[:-1] in ((), ("src",)):
        _middleware(index, src)
        return
    if parts[:1] == ("app",) or parts[:2] == ("src", "app"):
        folders = list(parts[parts.index("app") + 1:-1])
        stem = src.path.stem
        if stem not in ("page", "route"):
            return
        if any(f.startswith(("_", "(.)", "(..)", "(...)")) for f in folders):
            return  # private folders and intercepting routes are not routes of their own
        route = _join([f for f in folders if not (f.startswith("(") and f.endswith(")")) and not f.startswith("@")])
        if stem == "page":
            _page(index, src, route)
        elif suffix in (".js", ".ts", ".mjs"):
            _methods(index, src, route)
    elif parts[:1] == ("pages",) or parts[:2] == ("src", "pages"):
        tail = list(parts[parts.index("pages") + 1:])
        if not tail or tail[-1].startswith("_"):
            return  # _app, _document, _error
        tail[-1] = PurePosixPath(tail[-1]).stem
        if tail[-1] == "index":
            tail.pop()
        route = _join(tail)
        if tail and tail[0] == "api":
            m = _DEFAULT.search(src.text)
            _route(index, src, "ANY", route, m.start() if m else 0)
        else:
            _page(index, src, route)


def _remix_name(name: str) -> list[str]:
    """`concerts.$city` -> ['concerts', ':city']; `_auth.login` -> ['login']; `[sitemap.xml]` kept whole."""
    segments, current, escaped = [], "", False
    for ch in name:
        if ch == "[":
            escaped = True
        elif ch == "]":
            escaped = False
        elif ch == "." and not escaped:
            segments.append(current)
            current = ""
        else:
            current += ch
    segments.append(current)
    out = []
    for seg in segments:
        optional = seg.startswith("(") and seg.endswith(")")
        seg = seg.strip("()")
        if seg in ("_index", "index", "route") or seg.startswith("_") or not seg:
            continue  # the index, a pathless layout (`_auth`, v1 `__auth`)
        seg = seg.rstrip("_")  # `concerts_.mine`: not nested in the concerts layout, same path
        if seg == "$":
            seg = "*"
        elif seg.startswith("$"):
            seg = ":" + seg[1:]
        out.append(seg + ("?" if optional else ""))
    return out


def _remix(index: Index, src: Source, rest: tuple[str, ...], ctx: Context) -> None:
    if src.path.suffix not in SCRIPT_EXT or not rest:
        return
    stem = src.path.name[: -len(src.path.suffix)]
    if len(rest) == 1:
        name = stem
    elif len(rest) == 2 and stem == "route":
        name = rest[0]  # v2 folder route: the folder is the route, the other files are its modules
    elif any("/".join(src.path.parts[:k]) in ctx.folder_routes for k in range(1, len(src.path.parts))):
        return  # a module beside a v2 folder route's route.tsx
    else:
        name = ".".join((*rest[:-1], stem))  # v1: nested folders
    route = _join(_remix_name(name))
    exports = {m.group(1): m.start(1) for m in _REMIX_EXPORT.finditer(src.text)}
    if _DEFAULT.search(src.text):
        _page(index, src, route)
    elif "loader" in exports:
        _route(index, src, "GET", route, exports["loader"])
    if "action" in exports:
        _route(index, src, "POST", route, exports["action"])


def _svelte_folders(folders: tuple[str, ...]) -> str:
    segs = []
    for f in folders:
        if f.startswith("(") and f.endswith(")"):
            continue
        segs.append(re.sub(r"\[(\.\.\.)?(\w+)=\w+\]", r"[\1\2]", f))
    return _join(segs)


def _sveltekit(index: Index, src: Source, rest: tuple[str, ...]) -> None:
    if not rest:
        return
    name = rest[-1]
    route = _svelte_folders(rest[:-1])
    if name == "+page.svelte":
        _page(index, src, route)
    elif name in ("+server.ts", "+server.js"):
        _methods(index, src, route)
    elif name in ("+page.server.ts", "+page.server.js"):
        m = _ACTIONS.search(src.text)
        if m:
            _route(index, src, "POST", route, m.start())


def _nuxt_segment(seg: str) -> str | None:
    if seg.startswith("(") and seg.endswith(")"):
        return None  # a route group
    if seg == "_":
        return "*"
    if seg.startswith("_"):
        return ":" + seg[1:]  # Nuxt 2 dynamic segment
    return seg


def _nuxt(index: Index, src: Source, parts: tuple[str, ...]) -> None:
    suffix = src.path.suffix
    for base in (("pages",), ("app", "pages"), ("src", "pages")):
        if parts[:len(base)] == base and suffix == ".vue" and len(parts) > len(base):
            tail = [*parts[len(base):-1], src.path.stem]
            if tail[-1] == "index":
                tail.pop()
            route = _join([s for s in map(_nuxt_segment, tail) if s])
            _page(index, src, route)
            return
    for base, prefix in ((("server", "api"), ["api"]), (("server", "routes"), [])):
        if parts[:2] == base and suffix in SCRIPT_EXT and len(parts) > 2:
            stem = src.path.stem
            method = "ANY"
            head, _, last = stem.rpartition(".")
            if head and last.upper() in METHODS:
                stem, method = head, last.upper()
            tail = [*parts[2:-1], stem]
            if tail[-1] == "index":
                tail.pop()
            m = _DEFAULT.search(src.text)
            _route(index, src, method, _join(prefix + tail), m.start() if m else 0)
            return


def _tanstack(index: Index, src: Source) -> None:
    for m in _TANSTACK.finditer(src.text):
        path = m.group(1)
        if path.startswith("/__root"):
            continue
        route = _join([s for s in path.split("/") if s and not s.startswith("_")])
        words = identifier_concepts(route) or identifier_concepts(HOME)
        src.add(index, "page", route, m.start(1), words, side="ui", route=route)
