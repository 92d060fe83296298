"""ragdash dashboard (placeholder until the full dashboard lands)."""
