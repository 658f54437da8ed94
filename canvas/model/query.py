"""The `/` filter language: words match anywhere; a few prefixes narrow to one field.

    login            title, id, status, assignee or tag contains "login"
    status:blocked   the status starts with "blocked" (also is:, s:)
    @claude          the assignee contains "claude"
    #tech-debt       a tag contains "tech-debt"
    release:R2       the effective release is R2 (also r:)

Every term must match (AND); matching ignores case.
"""

from __future__ import annotations

from dataclasses import dataclass

from leafwise.store import CLOSED, Node

FIELDS = {"status": "status", "is": "status", "s": "status", "release": "release", "r": "release",
          "tag": "tag", "assignee": "assignee", "a": "assignee", "id": "id"}
STATUS_ALIASES = {"active": "in-progress", "wip": "in-progress", "open": "open", "closed": "closed"}


@dataclass(frozen=True, slots=True)
class Query:
    terms: tuple[tuple[str | None, str], ...]  # (field or None for anywhere, folded value)

    @classmethod
    def parse(cls, text: str) -> Query:
        terms: list[tuple[str | None, str]] = []
        for word in text.split():
            folded = word.casefold()
            if folded.startswith("@") and len(folded) > 1:
                terms.append(("assignee", folded[1:]))
            elif folded.startswith("#") and len(folded) > 1:
                terms.append(("tag", folded[1:]))
            elif ":" in folded and folded.split(":", 1)[0] in FIELDS and folded.split(":", 1)[1]:
                name, value = folded.split(":", 1)
                terms.append((FIELDS[name], value))
            else:
                terms.append((None, folded))
        return cls(tuple(terms))

    def narrows(self, wider: Query) -> bool:
        """Is every match of this query also a match of `wider`? (typing on: search within)"""
        if len(self.terms) < len(wider.terms):
            return False
        for (field, value), (wide_field, wide_value) in zip(self.terms, wider.terms):
            # Equality (release) does not narrow by extension; contains and startswith do.
            if field != wide_field or field == "release" or not value.startswith(wide_value):
                return False
        return True

    def matches(self, node: Node, search: str) -> bool:
        """`search` is the node's folded search text (id, title, status, assignee, tags)."""
        for field, value in self.terms:
            if field in (None, "assignee", "tag", "id") and value not in search:
                return False  # cheap first: these fields are all part of the search text
            if field is None:
                continue
            if field == "status":
                wanted = STATUS_ALIASES.get(value, value)
                if wanted == "open":
                    ok = node.status not in CLOSED
                elif wanted == "closed":
                    ok = node.status in CLOSED
                else:
                    ok = node.status.startswith(wanted)
                if not ok:
                    return False
            elif field == "release":
                if (node.effective_release or "").casefold() != value:
                    return False
            elif field == "tag":
                if not any(value in t.casefold() for t in node.data.get("tags") or ()):
                    return False
            elif field == "assignee":
                if value not in (node.assignee or "").casefold():
                    return False
            elif field == "id":
                if value not in node.id.casefold():
                    return False
        return True
