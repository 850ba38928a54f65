"""Scripts that rebuild the shipped data (trained heads, lexicons, weights): python shared/tools/training/<name>.py (in a checkout)."""
