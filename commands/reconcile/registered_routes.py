"""Routes that Go and Ruby code registers by a call: `mux.HandleFunc("GET /starred", h.showStarredPage)`
(net/http's method patterns), `r.HandleFunc("/feeds", h).Methods("GET")` (gorilla), `r.GET("/feeds", h)`
(gin, echo, chi), and a Rails `config/routes.rb` (`get "/rss" => "home#index"`, `resources :stories`).

A route file is where a reader starts: it names what the application answers, and the handler it names
is the code that does it. Each route's words are its path's and its handler's (`showStarredPage`).
Every pattern is matched line by line, with no nested repetition (linear on untrusted text).
"""

from __future__ import annotations

import re

from leafwise.commands.reconcile.artifacts import Index, Source, route_words

_METHODS = "GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS"
# net/http and gorilla: a call that takes a pattern first, with the method in it or chained after it.
_GO_HANDLE = re.compile(r"""\.(?:HandleFunc|Handle)\(\s*"(?:(""" + _METHODS + r""")\s+)?(/[^"\s]*)"(.*)$""")
# gin, echo, chi, fiber: the method is the call.
_GO_VERB = re.compile(r"""\.(GET|POST|PUT|PATCH|DELETE|Get|Post|Put|Patch|Delete)\(\s*"(/[^"\s]*)"(.*)$""")
_GO_CHAINED = re.compile(r"""\.Methods\(\s*"(""" + _METHODS + r""")\"""")
_GO_MEMBER = re.compile(r"""\b[A-Za-z_]\w*\.([A-Za-z_]\w*)""")
_GO_PLUMBING = frozenset({"Methods", "Name", "Queries", "Subrouter", "HandlerFunc", "Handler", "StripPrefix",
                          "FileServer", "Dir", "FS"})
# Rails: `get "/path" => "controller#action"`, `post "/x", to: "c#a"`, `resources :stories`.
_RB_VERB = re.compile(r"""^\s*(get|post|put|patch|delete|match)\s+["']([^"']*)["'](.*)$""")
_RB_ACTION = re.compile(r"""["'](\w+)#(\w+)["']""")
_RB_RESOURCES = re.compile(r"""^\s*(resources?)\s+:(\w+)""")
MAX_LINE = 2000  # a longer line is data, not a route table


def scan_file(index: Index, src: Source) -> None:
    """The routes one Go file or one Rails routes file registers."""
    if src.rel.endswith(".go") and not src.rel.endswith("_test.go"):
        if "Handle" in src.text or any(f".{v}(\"/" in src.text for v in ("GET", "POST", "Get", "Post")):
            _go(index, src)
    elif src.path.name == "routes.rb":
        _rails(index, src)


def _lines(src: Source):
    offset = 0
    for line in src.text.split("\n"):
        if len(line) <= MAX_LINE:
            yield offset, line
        offset += len(line) + 1


def _go(index: Index, src: Source) -> None:
    for offset, line in _lines(src):
        m = _GO_HANDLE.search(line)
        if m:
            chained = _GO_CHAINED.search(m.group(3))
            method = m.group(1) or (chained.group(1) if chained else "ANY")
            path, tail, at = m.group(2), m.group(3), m.start(2)
        else:
            m = _GO_VERB.search(line)
            if not m:
                continue
            method, path, tail, at = m.group(1).upper(), m.group(2), m.group(3), m.start(2)
        handler = next((h for h in _GO_MEMBER.findall(tail) if h not in _GO_PLUMBING), "")
        src.add(index, "route", f"{method} {path}", offset + at, route_words(method, path, handler),
                side="server", method=method, route=path)


def _rails(index: Index, src: Source) -> None:
    for offset, line in _lines(src):
        m = _RB_VERB.match(line)
        if m:
            method = "ANY" if m.group(1) == "match" else m.group(1).upper()
            path = "/" + m.group(2).lstrip("/")
            action = _RB_ACTION.search(m.group(3))
            names = (action.group(1), action.group(2)) if action else ()
            src.add(index, "route", f"{method} {path}", offset + m.start(2), route_words(method, path, *names),
                    side="server", method=method, route=path)
            continue
        m = _RB_RESOURCES.match(line)
        if m:
            path = "/" + m.group(2)
            src.add(index, "route", f"ANY {path}", offset + m.start(2), route_words("ANY", path),
                    side="server", method="ANY", route=path)
