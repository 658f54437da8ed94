"""The verification loop: evidence packets and verdicts with checked quotes."""
