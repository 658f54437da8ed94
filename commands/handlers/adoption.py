"""Adopting Leafwise from another tracker: import and export."""
