"""Building blocks shared by more than one metric."""
