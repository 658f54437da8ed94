# The case folders are sample applications used as reconcile fixtures; their own
# test suites need FastAPI, Node etc. and must not run inside Leafwise's pytest.
collect_ignore = ["fastapi_bookstore", "express_react_tasks"]
