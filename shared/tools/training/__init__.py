"""Scripts that rebuild the shipped data (trained heads, lexicons, weights): python -m nlgmetrics.training.<name>."""
