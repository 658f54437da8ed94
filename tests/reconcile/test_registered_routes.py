"""Routes Go and Rails code registers by a call (registered_routes.py): each a `route` artifact at the
pattern's line, named by its method and path, with the handler's words; a Go test file and a pattern in
a string that is not a registration yield none."""

from __future__ import annotations

from pathlib import Path

from testkit.repos import commit_all, write_files

GO_UI = '''package ui

func Serve(mux *http.ServeMux, handler *handler) {
	mux.HandleFunc("GET /starred", handler.showStarredPage)
	mux.HandleFunc("POST /history/flush", ToHTTPHandler(deps, handler.flushHistory, mw...))
	router.HandleFunc("/feeds", handler.showFeedsPage).Name("feeds").Methods("GET")
	r.POST("/api/tags/rename", legacy.HandleRenameTag)
	log.Printf("GET /not-a-route")
}
'''
RAILS = '''Rails.application.routes.draw do
  get "/rss" => "home#index", :format => "rss"
  post "/login", to: "login#login"
  resources :stories
end
'''


def routes(root: Path, files: dict[str, str]) -> dict[str, tuple[str, int, frozenset[str]]]:
    from leafwise.commands.reconcile.scan import build_index

    write_files(root, files)
    commit_all(root)
    index = build_index(root, use_cache=False)
    return {a.name: (a.path, a.line, a.words) for a in index.artifacts if a.kind == "route"}


def concepts(*texts: str) -> frozenset[str]:
    from leafwise.commands.reconcile.text import identifier_concepts

    return identifier_concepts(*texts)


def test_go_routes_of_net_http_gorilla_and_gin_carry_their_handlers_words(tmp_path):
    found = routes(tmp_path, {"internal/ui/ui.go": GO_UI, "internal/ui/ui_test.go": GO_UI})
    assert {name: at[:2] for name, at in found.items()} == {
        "GET /starred": ("internal/ui/ui.go", 4), "POST /history/flush": ("internal/ui/ui.go", 5),
        "GET /feeds": ("internal/ui/ui.go", 6), "POST /api/tags/rename": ("internal/ui/ui.go", 7)}
    assert concepts("showStarredPage") <= found["GET /starred"][2]
    assert concepts("flushHistory") <= found["POST /history/flush"][2]
    assert concepts("HandleRenameTag") <= found["POST /api/tags/rename"][2]


def test_rails_routes_name_the_controller_action_and_resources(tmp_path):
    found = routes(tmp_path, {"config/routes.rb": RAILS, "app/models/story.rb": RAILS})
    assert {name: at[:2] for name, at in found.items()} == {
        "GET /rss": ("config/routes.rb", 2), "POST /login": ("config/routes.rb", 3),
        "ANY /stories": ("config/routes.rb", 4)}
    assert concepts("home", "index", "rss") <= found["GET /rss"][2]
