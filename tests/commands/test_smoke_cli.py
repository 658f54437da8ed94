from testkit import run_cli


def test_demo_plan_next_and_validate(demo_plan):
    res = run_cli("validate", cwd=demo_plan)
    assert res.code == 0, res.stderr
    res = run_cli("next", "--json", cwd=demo_plan)
    env = res.json
    assert env["status"] == "ok"
    assert env["_next_action"]["marker"] == "next"
    assert env["_next_action"]["command"].startswith("leafwise start ")
