"""The Shop back end."""
