"""Shared test helpers: builders, synthetic audits, sample reports, fake and demo targets,
the golden-file helper and the repository paths."""
