"""The verify packet's passages: lines the index names nothing in (a configuration or deploy file, a
stylesheet; a Rails route table reaches it as routes) reach the packet through the real CLI, and what should not
(a CI workflow, a test file's lines, a file past the probes' bounds) does not."""

from __future__ import annotations

import pytest
import subprocess
from pathlib import Path

from testkit import node, run_cli_in_process, write_plan

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}

ROUTES = """Rails.application.routes.draw do
  root to: "home#index"
  get "/newest" => "home#newest"

  resources :stories do
    post "upvote"
    post "unvote"
  end
end
"""
COMPOSE = """services:
  backend:
    image: app
  flower:
    image: mher/flower
    command: celery --app=app.tasks flower --port=5555
    ports:
      - 5555:5555
"""
CODE = {
    "config/routes.rb": ROUTES,
    "docker-compose.yml": COMPOSE,
    "app/models/story.rb": "class Story\n  def title\n    @title\n  end\nend\n",
    "app/models/comment.rb": "class Comment\n  def body\n    @body\n  end\nend\n",
    "app/assets/stylesheets/theme.css": "body { color: black; }\n\n@media (prefers-color-scheme: dark) {\n"
                                        "  body { color: white; background: #111; }\n}\n",
    ".github/workflows/deploy.yml": "jobs:\n  deploy:\n    steps:\n      - run: echo monitoring the flower dashboard\n",
    "spec/models/story_spec.rb": "describe Story do\n  it 'counts' do\n    expect(1).to eq(1)\n  end\nend\n"
                                 "# upvote stories here too\n",
    "test/stories_test.rb": "describe 'x' do\n  it 'works' do\n    visit '/'\n  end\nend\n"
                            "# upvote stories here too\n",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=GIT_ENV)


def repository(root: Path, files: dict[str, str], leaves: list[tuple[str, str]]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "app")
    write_plan(root, [node(i, t, release="R1") for i, t in leaves])
    return root


def places(root: Path, node_id: str) -> list[dict]:
    res = run_cli_in_process("verify", node_id, "--json", cwd=root)
    assert res.code == 0, res.stdout + res.stderr
    return res.json["result"]["places"]


@pytest.mark.slow
def test_route_table_deploy_file_and_stylesheet_lines_reach_the_packet(tmp_path: Path):
    root = repository(tmp_path / "repo", CODE, [("T-1", "Upvote stories"),
                                                ("T-2", "Monitor background tasks in a Flower dashboard"),
                                                ("T-3", "Dark colour scheme")])
    routes = [p for p in places(root, "T-1") if p["path"] == "config/routes.rb"]
    assert routes and routes[0]["start"] <= 6 <= routes[0]["end"], routes  # `post "upvote"`
    assert "upvote" in routes[0]["snippet"] and routes[0]["why"].startswith("route POST /upvote")  # registered_routes
    flower = places(root, "T-2")
    compose = [p for p in flower if p["path"] == "docker-compose.yml"]
    assert compose and compose[0]["start"] <= 6 <= compose[0]["end"], flower  # `celery --app=app.tasks flower`
    assert not any(p["path"].startswith(".github/") for p in flower)  # a CI workflow is not the project
    css = [p for p in places(root, "T-3") if p["path"].endswith("theme.css")]
    assert css and css[0]["start"] <= 3 <= css[0]["end"]


def test_a_test_files_lines_are_no_passage_rspec_included(tmp_path: Path):
    root = repository(tmp_path / "repo", CODE, [("T-1", "Upvote stories")])
    found = places(root, "T-1")
    assert not any(p["path"] in ("test/stories_test.rb", "spec/models/story_spec.rb") and p["why"].startswith("passage")
                   for p in found), found


def test_a_file_of_nothing_but_the_titles_word_stays_within_the_packets_bounds(tmp_path: Path):
    """A planted file repeating a probe costs at most MAX_HITS marks a probe; the packet keeps its limits."""
    from leafwise.commands.domain.verify_packet import MAX_PLACES, TOKEN_BUDGET

    planted = {"deploy/flood.yml": "flower flower flower dashboard\n" * 12_000, **CODE}
    root = repository(tmp_path / "repo", planted, [("T-2", "Monitor background tasks in a Flower dashboard")])
    res = run_cli_in_process("verify", "T-2", "--json", cwd=root)
    packet = res.json["result"]
    assert len(packet["places"]) <= MAX_PLACES and packet["tokens"] <= TOKEN_BUDGET
    assert sum(p["path"].startswith("deploy/") for p in packet["places"]) <= 1  # one best window of that file
