"""schema."""
