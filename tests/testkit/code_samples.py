"""A small library of real-looking code that several reconcile tests scan."""

LIBRARY = {
    "pkg/limits.py": (
        "import time\n\n\n"
        "class throttle_calls:\n"
        '    """Throttle calls to at most `rate` per second, sleeping between bursts."""\n\n'
        "    def __init__(self, rate=1.0):\n        self.rate = rate\n"),
    "pkg/importers/legacy.py": (
        "def read_legacy_archive(path):\n"
        '    """Read recipes from a Legacy archive: the user makes the archive in Legacy first."""\n'
        "    return []\n"),
    "pkg/exporters.py": "def export_recipes_json(recipes):\n    return '[]'\n",
    "tests/test_limits.py": "def test_throttle_calls_per_second():\n    assert True\n",
    # A real package names more than a handful of things (below ~6 % a word is not background).
    "pkg/units.py": "".join(f"def convert_{u}_to_base(value):\n    return value\n\n\n" for u in (
        "gram", "ounce", "pound", "litre", "cup", "spoon", "pinch", "dash", "quart", "pint", "gallon", "stone",
        "metre", "inch", "foot", "yard", "mile", "second", "minute", "hour", "day", "week", "month", "year",
        "kelvin", "celsius", "fahrenheit", "joule", "calorie", "watt")),
    "README.md": (
        "# pkg\n\n"
        "## Throttling\n\nThrottle calls to a rate per second with `throttle_calls`.\n\n"
        "## Backups\n\nAutomatic nightly backups of every collection, kept for a month.\n\n"
        "## Not included\n\nThe library no longer performs automatic cloud sync.\n"),
}
